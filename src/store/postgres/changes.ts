// Call changes shared between the nodes through LISTEN/NOTIFY: a dashboard connected to one node
// follows calls dialed by another. Each notice names the node that published it, which ignores it.
import { z } from 'zod';
import { FINAL_STATES, IN_FLIGHT_STATES } from '../../core/call-state.js';
import type { CallChangeNotice, ChangeFeed } from '../contract.js';
import type { Sql } from './connect.js';

export const CHANGES_CHANNEL = 'ringhook_calls';

/** Anything that can NOTIFY on the channel is heard: only a well-formed notice is passed on. */
const payloadSchema = z.object({
  callId: z.string().max(100),
  userId: z.string().max(100),
  status: z.enum([...IN_FLIGHT_STATES, ...FINAL_STATES, 'sms']),
  at: z.number().int(),
  node: z.string().max(100),
});
type Payload = z.infer<typeof payloadSchema>;

function parse(text: string): Payload | undefined {
  try {
    const result = payloadSchema.safeParse(JSON.parse(text));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
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
      const payload = parse(text);
      if (!payload || payload.node === this.nodeId) return;
      const { node: _node, ...change } = payload;
      listener(change);
    });
    return unlisten;
  }
}
