// A stand-in for AriClient: records what the dialer asks, and the test plays Asterisk's events
// through it. For the dialer's state machine without Asterisk (the e2e suite proves the same paths
// against a real one).
import { EventEmitter } from 'node:events';
import { AriError } from '../../src/pbx/ari-error.js';
import type { AriClientEvents, OriginateParams } from '../../src/pbx/ari-types.js';
import type { AriEvent } from '../../src/pbx/ari-schema.js';

/** Stand-in for AriClient: records requests, and the test emits Asterisk's events through it. */
export class StandInAri extends EventEmitter<AriClientEvents> {
  isConnected = true;
  readonly originated: OriginateParams[] = [];
  readonly hungUp: string[] = [];
  readonly played: string[][] = [];
  readonly stopped: string[] = [];
  originateError: Error | undefined;
  /** How long after an originate Asterisk reports the call dialing (it sends the INVITE then). */
  dialAfterMs = 0;
  alive = new Set<string>();

  async originate(p: OriginateParams) {
    this.originated.push(p);
    if (this.originateError) throw this.originateError;
    this.alive.add(p.channelId);
    // As Asterisk does once it dials: Dial with an empty status.
    setTimeout(
      () => this.send({ type: 'Dial', peer: { id: p.channelId, name: p.endpoint, state: 'Down' }, dialstatus: '' }),
      this.dialAfterMs,
    );
    return { id: p.channelId, name: p.endpoint, state: 'Down' };
  }
  async hangup(channelId: string) {
    this.hungUp.push(channelId);
  }
  async play(channelId: string, playbackId: string, media: string | string[]) {
    this.played.push([channelId, ...(Array.isArray(media) ? media : [media])]);
    return { id: playbackId, media_uri: '', target_uri: `channel:${channelId}`, state: 'playing' };
  }
  async stopPlayback(playbackId: string) {
    this.stopped.push(playbackId);
  }

  async getEndpoint(technology: string, resource: string) {
    return { technology, resource, state: 'online' };
  }
  /** Channels answered meanwhile (their StasisStart lost with the connection): reported Up. */
  readonly answeredUnseen = new Set<string>();
  async channelsStillUp(ids: Iterable<string>) {
    return new Map(
      [...ids]
        .filter((id) => this.alive.has(id))
        .map((id) => [id, this.answeredUnseen.has(id) ? 'Up' : 'Ringing'] as const),
    );
  }
  /** No media here: Asterisk's answer for a channel without RTP (machine detection then reads TALK_DETECT alone). */
  async rtpStatistics(channelId: string): Promise<never> {
    throw new AriError('http', 'GET', `/channels/${channelId}/rtp_statistics`, 404, 'RTP info not found');
  }
  send(event: Record<string, unknown>): void {
    this.emit('event', event as unknown as AriEvent);
  }
}
