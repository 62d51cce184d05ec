// The ringhook nodes sharing one PostgreSQL database: each says it is alive every few seconds, and
// a node that stops saying so is declared gone by exactly one survivor, which ends its calls.
import type { CallForDialing, EndedWithoutSms, WaitingSms } from '../../core/records.js';
import type { GoneNode } from '../../core/server/cluster.js';
import type { NodeInfo } from '../../core/server/cluster-view.js';
import type { NodeRegistry } from '../contract/index.js';
import { VERSION } from '../../lib/version.js';
import { query, type Sql } from './connect.js';
import { PG_SCHEMA_VERSION } from './migrations.js';
import { IN_PROGRESS, SELECT_CALL } from './progress.js';
import { withAccountFlags } from '../outbox.js';
import { ENDED_WITHOUT_SMS } from './sms.js';

interface NodeRow {
  node_id: string;
  started_at: number;
  seen_at: number;
  gone_at: number | null;
  version: string | null;
  schema: number | null;
}

const SQL = {
  heartbeat: `INSERT INTO nodes (node_id, started_at, seen_at, gone_at, version, schema) VALUES ($1, $2, $3, NULL, $4, $5)
              ON CONFLICT (node_id) DO UPDATE SET started_at = excluded.started_at, seen_at = excluded.seen_at, gone_at = NULL,
                                                  version = excluded.version, schema = excluded.schema`,
  // SKIP LOCKED: of two survivors looking at once, each declares a silent node gone or leaves it to the other.
  silent:
    'SELECT node_id FROM nodes WHERE gone_at IS NULL AND seen_at < $1 AND node_id <> $2 ORDER BY node_id FOR UPDATE SKIP LOCKED',
  gone: 'UPDATE nodes SET gone_at = $2 WHERE node_id = $1',
  callsOf: `${SELECT_CALL} WHERE node_id = $1 AND accepted = 1 AND status IN ${IN_PROGRESS} ORDER BY id`,
  // Its SMS being handed over or waiting for the gateway become the survivor's.
  smsOf: `UPDATE calls SET sms_node = $2 WHERE sms_node = $1 AND sms_status IN ('sending', 'waiting')
          RETURNING id, call_id AS "callId", user_id AS "userId", status, message, message_truncated AS "messageTruncated", phone, carried_by AS "carriedBy", sms_at AS "claimedAt", sms_status AS "smsStatus"`,
  list: 'SELECT node_id, started_at, seen_at, gone_at, version, schema FROM nodes ORDER BY node_id',
} as const;

export class PgNodeRegistry implements NodeRegistry {
  /** When this process first said it was alive. */
  private startedAt: number | undefined;

  constructor(
    private readonly sql: Sql,
    readonly nodeId: string,
    private readonly now: () => number = Date.now,
  ) {}

  async heartbeat(): Promise<void> {
    const now = this.now();
    this.startedAt ??= now;
    await query(this.sql, SQL.heartbeat, [this.nodeId, this.startedAt, now, VERSION, PG_SCHEMA_VERSION]);
  }

  takeOverSilent(silentMs: number, smsWindowMs: number): Promise<GoneNode[]> {
    return this.sql.begin(async (tx) => {
      const now = this.now();
      const taken: GoneNode[] = [];
      for (const { node_id } of await query<{ node_id: string }>(tx, SQL.silent, [now - silentMs, this.nodeId])) {
        await query(tx, SQL.gone, [node_id, now]);
        const calls = await query<CallForDialing>(tx, SQL.callsOf, [node_id]);
        // Its phone lines stay held: its calls may still be up at the phones (progress.ts, staleLine).
        const sms = [
          ...(await query<WaitingSms & { id: number; smsStatus: string }>(tx, SQL.smsOf, [node_id, this.nodeId])),
        ].sort((x, y) => x.id - y.id);
        const ended = await query<EndedWithoutSms>(tx, ENDED_WITHOUT_SMS, [node_id, now - smsWindowMs]);
        taken.push({
          nodeId: node_id,
          calls: calls.map(withAccountFlags),
          sms: {
            handingOver: sms.filter((r) => r.smsStatus === 'sending').map((r) => r.callId),
            waiting: sms
              .filter((r) => r.smsStatus === 'waiting')
              .map(({ callId, userId, status, message, messageTruncated, phone, carriedBy, claimedAt }) => ({
                callId,
                userId,
                status,
                message,
                messageTruncated,
                phone,
                carriedBy,
                claimedAt,
              })),
            ended: [...ended],
          },
        });
      }
      return taken;
    });
  }

  async list(): Promise<NodeInfo[]> {
    return (await query<NodeRow>(this.sql, SQL.list)).map((r) => ({
      nodeId: r.node_id,
      startedAt: r.started_at,
      seenAt: r.seen_at,
      goneAt: r.gone_at,
      version: r.version,
      schema: r.schema,
    }));
  }

  async leave(): Promise<void> {
    await query(this.sql, SQL.gone, [this.nodeId, this.now()]);
  }
}
