// Call changes shared between the nodes through LISTEN/NOTIFY: a dashboard connected to one node
// follows calls dialed by another. Each notice names the node that published it, which ignores it.
import { z } from 'zod';
import { FINAL_STATES, HELD, IN_FLIGHT_STATES } from '../../core/calls/call-state.js';
import type { CallChangeNotice } from '../../core/server/cluster.js';
import type { ChangeFeed } from '../contract/index.js';
import type { Sql } from './connect.js';

export const CHANGES_CHANNEL = 'ringhook_calls';

/** Anything that can NOTIFY on the channel is heard: only a well-formed notice is passed on. */
const payloadSchema = z.object({
  callId: z.string().max(100),
  userId: z.string().max(100),
  status: z.enum([...IN_FLIGHT_STATES, ...FINAL_STATES, HELD, 'sms', 'refused']),
  at: z.number().int(),
  node: z.string().max(100),
});
type Payload = z.infer<typeof payloadSchema>;

/** The calls one webhook batch queued, in one notice (sent by migration 012's function at its commit). */
const batchSchema = z.object({
  calls: z.array(z.tuple([z.string().max(100), z.string().max(100)])).max(1000),
  status: z.literal('queued'),
  at: z.number().int(),
  node: z.string().max(100),
});

/** The notices in one notification: one, or a webhook batch's. */
function parse(text: string): Payload[] {
  try {
    const json: unknown = JSON.parse(text);
    const one = payloadSchema.safeParse(json);
    if (one.success) return [one.data];
    const batch = batchSchema.safeParse(json);
    if (!batch.success) return [];
    const { calls, ...rest } = batch.data;
    return calls.map(([callId, userId]) => ({ callId, userId, ...rest }));
  } catch {
    return [];
  }
}

export class PgChangeFeed implements ChangeFeed {
  constructor(
    private readonly sql: Sql,
    private readonly nodeId: string,
  ) {}

  /** Fire and forget: a lost notice costs a dashboard a refresh, never a call. */
  publish(change: CallChangeNotice): void {
    const payload: Payload = {
      callId: change.callId,
      userId: change.userId,
      status: change.status,
      at: change.at,
      node: this.nodeId,
    };
    try {
      // Best effort: the other nodes' dashboards also look at the store regularly, so a lost notice only comes later.
      this.sql.notify(CHANGES_CHANNEL, JSON.stringify(payload)).catch(() => {});
    } catch {
      // The pool is closed: nobody is listening either.
    }
  }

  async subscribe(listener: (change: CallChangeNotice) => void): Promise<() => Promise<void>> {
    const { unlisten } = await this.sql.listen(CHANGES_CHANNEL, (text) => {
      for (const payload of parse(text)) {
        if (payload.node === this.nodeId) continue;
        const { node: _node, ...change } = payload;
        listener(change);
      }
    });
    return unlisten;
  }
}
