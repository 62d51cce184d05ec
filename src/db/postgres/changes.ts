// Call changes shared between the nodes through LISTEN/NOTIFY: a dashboard connected to one node
// follows calls dialed by another. Each notice names the node that published it, which ignores it.
import type { CallChangeNotice, ChangeFeed } from '../store.js';
import type { Sql } from './connect.js';

export const CHANGES_CHANNEL = 'ringhook_calls';

interface Payload extends CallChangeNotice {
  node: string;
}

function parse(text: string): Payload | undefined {
  try {
    const value = JSON.parse(text) as Partial<Payload> | null;
    return value && typeof value.node === 'string' && typeof value.callId === 'string' ? (value as Payload) : undefined;
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
    const payload: Payload = { callId: change.callId, userId: change.userId, status: change.status, at: change.at, node: this.nodeId };
    try {
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
