// Reads SIPp's message log (-trace_msg) as the phone saw it: when each INVITE dialog began and
// ended, so a test can count the calls the phone had at once.

export interface Dialog {
  callId: string;
  /** The user part of the INVITE's request URI: the number called. */
  to: string;
  startedAt: number;
  /**
   * The BYE (either way), the caller's CANCEL (it gave up the call: its line is free at the provider,
   * whenever the phone answers it 487) or the final non-2xx answer to the INVITE; undefined while up.
   */
  endedAt: number | undefined;
}

/** Each message of the log: "----- 2026-11-24 02:04:05.960946", "UDP message received [891] bytes :", a blank line, the message. */
const SEPARATOR = /^-{10,} (\d{4}-\d\d-\d\d)[ \t](\d\d:\d\d:\d\d\.\d+)\s*$/m;

export function sipDialogs(log: string): Dialog[] {
  const dialogs = new Map<string, Dialog>();
  const parts = log.split(SEPARATOR);
  // split() with groups: [before, date, time, block, date, time, block, …]
  for (let i = 1; i + 2 < parts.length; i += 3) {
    const at = Date.parse(`${parts[i]}T${parts[i + 1]!.slice(0, 12)}Z`);
    const lines = parts[i + 2]!.replace(/\r/g, '')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const first = (lines[0]?.startsWith('UDP message') ? lines[1] : lines[0])?.trim() ?? '';
    const header = (name: string) =>
      lines
        .find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
        ?.slice(name.length + 1)
        .trim();
    const callId = header('Call-ID');
    if (!callId) continue;
    if (first.startsWith('INVITE ') && !dialogs.has(callId)) {
      const to = /^INVITE sips?:([^@;> ]+)@/.exec(first)?.[1] ?? '';
      dialogs.set(callId, { callId, to, startedAt: at, endedAt: undefined });
    }
    const dialog = dialogs.get(callId);
    if (!dialog || dialog.endedAt !== undefined) continue;
    const status = /^SIP\/2\.0 (\d{3})/.exec(first)?.[1];
    const cseqMethod = header('CSeq')?.split(/\s+/)[1];
    if (
      first.startsWith('BYE ') ||
      first.startsWith('CANCEL ') ||
      (status !== undefined && cseqMethod === 'INVITE' && Number(status) >= 300)
    )
      dialog.endedAt = at;
  }
  return [...dialogs.values()].sort((a, b) => a.startedAt - b.startedAt);
}

/** The most dialogs that were up at the same moment. */
export function mostAtOnce(dialogs: readonly Dialog[]): number {
  const edges = dialogs.flatMap((d) => [
    { at: d.startedAt, step: 1 },
    { at: d.endedAt ?? Number.POSITIVE_INFINITY, step: -1 },
  ]);
  // An end and a start at the same instant are not overlapping: ends first.
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let up = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (up += e.step));
  return most;
}
