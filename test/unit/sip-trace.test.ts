// The test helper that reads SIPp's message log: the overlap count is what the one-line-per-phone
// e2e test relies on, so it is checked on logs in SIPp's own format.
import { describe, expect, it } from 'vitest';
import { mostAtOnce, sipDialogs } from '../helpers/sip-trace.js';

const msg = (time: string, dir: 'received' | 'sent', first: string, callId: string, cseq: string) =>
  `----------------------------------------------- 2026-11-24 ${time}\nUDP message ${dir} [100] bytes :\n\n${first}\r\nVia: SIP/2.0/UDP 127.0.0.1\r\nCall-ID: ${callId}\r\nCSeq: ${cseq}\r\nContent-Length: 0\r\n\r\n\n`;

describe('sipDialogs / mostAtOnce', () => {
  it('one call after the other: two dialogs, never two at once', () => {
    const log = [
      msg('02:00:00.000000', 'received', 'INVITE sip:+1@127.0.0.1 SIP/2.0', 'a', '1 INVITE'),
      msg('02:00:00.100000', 'sent', 'SIP/2.0 200 OK', 'a', '1 INVITE'),
      msg('02:00:05.000000', 'received', 'BYE sip:x SIP/2.0', 'a', '2 BYE'),
      msg('02:00:05.100000', 'received', 'INVITE sip:+1@127.0.0.1 SIP/2.0', 'b', '1 INVITE'),
      msg('02:00:05.200000', 'sent', 'SIP/2.0 486 Busy Here', 'b', '1 INVITE'),
    ].join('');
    const dialogs = sipDialogs(log);
    expect(dialogs.map((d) => [d.callId, d.to, d.endedAt! - d.startedAt])).toEqual([
      ['a', '+1', 5000],
      ['b', '+1', 100],
    ]);
    expect(mostAtOnce(dialogs)).toBe(1);
  });

  it('a second INVITE before the first ended counts two at once; a provisional answer does not end a dialog', () => {
    const log = [
      msg('02:00:00.000000', 'received', 'INVITE sip:+1@127.0.0.1 SIP/2.0', 'a', '1 INVITE'),
      msg('02:00:00.010000', 'sent', 'SIP/2.0 180 Ringing', 'a', '1 INVITE'),
      msg('02:00:00.020000', 'received', 'INVITE sip:+1@127.0.0.1 SIP/2.0', 'b', '1 INVITE'),
    ].join('');
    expect(mostAtOnce(sipDialogs(log))).toBe(2);
  });

  it("a caller's CANCEL ends its dialog (its line is free at the provider), whenever the phone answers it 487", () => {
    const log = [
      msg('02:00:00.000000', 'received', 'INVITE sip:+1@127.0.0.1 SIP/2.0', 'a', '1 INVITE'),
      msg('02:00:00.010000', 'sent', 'SIP/2.0 180 Ringing', 'a', '1 INVITE'),
      msg('02:00:05.000000', 'received', 'CANCEL sip:+1@127.0.0.1 SIP/2.0', 'a', '1 CANCEL'),
      msg('02:00:05.010000', 'received', 'INVITE sip:+2@127.0.0.1 SIP/2.0', 'b', '1 INVITE'),
      msg('02:00:05.020000', 'sent', 'SIP/2.0 487 Request Terminated', 'a', '1 INVITE'),
    ].join('');
    const dialogs = sipDialogs(log);
    expect(dialogs[0]!.endedAt! - dialogs[0]!.startedAt).toBe(5000);
    expect(mostAtOnce(dialogs)).toBe(1);
  });
});
