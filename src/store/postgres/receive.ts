// The webhook's alerts on PostgreSQL in one round trip each, or fewer: the alerts that arrive while
// the batches in flight are being committed go together in the next call of the server-side
// function (migration 014, with the owner controls), one transaction and one WAL flush for all of them. Each caller is
// answered only after its batch committed: a 200 still means the alert is on the server's disk.
import { normalizeAddress } from '../../core/connections/address-match.js';
import { alertKey } from '../../core/webhook/dedupe.js';
import { newCallId } from '../../core/ids.js';
import { TRADINGVIEW_WEBHOOK_ADDRESSES } from '../../core/webhook/tradingview-sources.js';
import { BURST_WINDOW_MS, decideLimits, monthWindow, PLAN_LIMITS } from '../../core/webhook/limits.js';
import type { AlertToReceive, ReceivedAlert } from '../../core/records.js';
import { isStoreUnavailable } from '../unavailable.js';
import { alertColumns, alertDecisionColumns, MAX_REJECTIONS_KEPT, rejectionColumns } from '../rows.js';
import { type AccountRow, toAccount } from '../account-rows.js';
import type { SecretBox } from '../secret-box.js';
import { queuedDelivery } from '../outbox.js';
import { query, type Sql } from './connect.js';
import { RECEIVE_FUNCTION } from './receive-function-v20.js';

const RECEIVE = `SELECT ${RECEIVE_FUNCTION}($1::text::jsonb, $2::text::jsonb, $3, $4, $5, $6, $7, $8) AS results`;
const PLANS = JSON.stringify(PLAN_LIMITS);
const TRADINGVIEW = TRADINGVIEW_WEBHOOK_ADDRESSES.join(',');
/** A batch bigger than this waits for the next call: one transaction does not hold many accounts' locks for long. */
const MAX_BATCH = 64;

type Verdict =
  | { r: 'unauthorized' }
  | { r: 'suspended' | 'invalid'; account: Omit<AccountRow, 'api_key_sealed'> }
  /** `o`: its call.queued status callback was written with it. */
  | { r: 'accepted'; account: Omit<AccountRow, 'api_key_sealed'>; o?: true }
  | { r: 'limited'; account: Omit<AccountRow, 'api_key_sealed'>; used: number; recent: number[] }
  | { r: 'source'; account: Omit<AccountRow, 'api_key_sealed'>; by: 'server' | 'account' }
  | { r: 'duplicate'; account: Omit<AccountRow, 'api_key_sealed'>; first: string };

interface Pending {
  request: AlertToReceive;
  item: Record<string, unknown>;
  resolve: (received: ReceivedAlert) => void;
  reject: (error: unknown) => void;
}

/**
 * What the function needs to check the owner controls (#41) whatever the account's settings, which
 * only the database knows: the client's address (as written, and normalized for matching), and the
 * server's refusal, when its rule refused it.
 */
function sourceOf(request: AlertToReceive): Record<string, unknown> {
  const source: Record<string, unknown> = {};
  if (request.serverRefusal !== undefined) source.sr = request.serverRefusal;
  if (request.address === undefined) return source;
  source.ip = request.address;
  const normalized = normalizeAddress(request.address);
  // A zone (fe80::1%eth0) is no address PostgreSQL reads: such a client is refused by any list.
  if (normalized && !normalized.address.includes('%')) source.n = normalized.address;
  return source;
}

/** The function's input for one alert: its credentials' MAC, and the row it becomes whichever way it is decided. */
function itemOf(request: AlertToReceive, mac: Buffer): Record<string, unknown> {
  const base = { u: request.userId, m: mac.toString('hex'), c: newCallId(), ...sourceOf(request) };
  const { payload } = request;
  if (!payload.ok) {
    const {
      user_id: _,
      kind: __,
      accepted: ___,
      ...invalid
    } = rejectionColumns({
      userId: request.userId,
      status: 'invalid_payload',
      error: payload.error,
      excerpt: payload.excerpt,
    });
    return { ...base, invalid };
  }
  const { alert } = payload;
  const {
    user_id: _,
    kind: __,
    accepted: ___,
    status: ____,
    error: _____,
    ...refused
  } = rejectionColumns({
    userId: request.userId,
    status: 'rate_limited',
    error: '',
    alert,
  });
  const decision = alertDecisionColumns(alert);
  return {
    ...base,
    a: alertColumns(alert),
    refused,
    k: alertKey({ idempotencyKey: request.idempotencyKey, alert }),
    ...(alert.expiresIn !== undefined && { x: alert.expiresIn }),
    ...withoutNulls({ dk: decision.decision_keys, ik: decision.idempotency_key }),
  };
}

/**
 * An item as sent at `at`: one whose alert may be accepted carries its call.queued delivery (`q`),
 * which the function writes only when the account has a callback URL.
 */
function withQueued(item: Record<string, unknown>, at: number): Record<string, unknown> {
  if (!('a' in item)) return item;
  const { messageId, eventKey, type, body } = queuedDelivery(item.c as string, item.u as string, at);
  return { ...item, q: { id: messageId, key: eventKey, type, body } };
}

/** The members that are not null (an item carries only what its alert has). */
function withoutNulls(members: Record<string, string | null>): Record<string, string> {
  return Object.fromEntries(Object.entries(members).filter(([, v]) => v !== null)) as Record<string, string>;
}

export class PgAlertReceiver {
  private pending: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly sql: Sql,
    private readonly secrets: SecretBox,
    private readonly nodeId: string | null,
    private readonly now: () => number,
    /** Batches sent at once; the next batch gathers the alerts that arrive meanwhile. */
    private readonly concurrency = 2,
  ) {}

  receive(request: AlertToReceive): Promise<ReceivedAlert> {
    return new Promise((resolve, reject) => {
      this.pending.push({ request, item: itemOf(request, this.secrets.mac(request.apiKey)), resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    while (this.inFlight < this.concurrency && this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH);
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.flush();
      });
    }
  }

  private async send(batch: Pending[]): Promise<void> {
    let verdicts: Verdict[];
    const at = this.now();
    try {
      verdicts = await this.call(
        batch.map((p) => withQueued(p.item, at)),
        at,
      );
    } catch (error) {
      // Nothing of the batch was written. One alert the server refuses (a character PostgreSQL's
      // text cannot hold) must not fail the others: alone, each gets its own answer.
      if (batch.length > 1 && !isStoreUnavailable(error)) {
        await Promise.all(batch.map((p) => this.send([p])));
        return;
      }
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => {
      try {
        p.resolve(this.outcome(p, verdicts[i]!, at));
      } catch (error) {
        p.reject(error);
      }
    });
  }

  private async call(items: Array<Record<string, unknown>>, at: number): Promise<Verdict[]> {
    const [row] = await query<{ results: Verdict[] }>(this.sql, RECEIVE, [
      JSON.stringify(items),
      PLANS,
      at,
      BURST_WINDOW_MS,
      monthWindow(at).key,
      this.nodeId,
      MAX_REJECTIONS_KEPT,
      TRADINGVIEW,
    ]);
    if (!row || row.results.length !== items.length)
      throw new Error(`${RECEIVE_FUNCTION} answered no verdict per alert`);
    return row.results;
  }

  private outcome({ request, item }: Pending, verdict: Verdict, at: number): ReceivedAlert {
    if (verdict.r === 'unauthorized') return { outcome: 'unauthorized' };
    const account = toAccount(verdict.account as AccountRow, request.apiKey);
    switch (verdict.r) {
      case 'accepted':
        return {
          outcome: 'accepted',
          account,
          callId: item.c as string,
          receivedAt: at,
          announced: this.nodeId !== null,
          ...(verdict.o && { outboxed: true }),
        };
      case 'suspended':
      case 'invalid':
        return { outcome: verdict.r, account, callId: item.c as string };
      case 'source':
        return { outcome: 'source_not_allowed', account, callId: item.c as string, setBy: verdict.by };
      case 'duplicate':
        return { outcome: 'duplicate', account, callId: verdict.first, rowId: item.c as string };
      case 'limited': {
        const decision = decideLimits(account.plan, at, verdict.used, verdict.recent);
        if (decision.allowed) throw new Error(`${RECEIVE_FUNCTION} refused an alert its limits allow`);
        return { outcome: 'refused', account, callId: item.c as string, decision };
      }
    }
  }
}
