// ringhook calls: the call history, newest first.
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import { z } from 'zod';
import { USER_ID_PATTERN } from '../core/ids.js';
import { UserError } from '../lib/errors.js';
import { smsStatusWords } from '../core/reasons.js';
import { keyPressesOf } from '../store/index.js';
import { parseArg, withStores } from './context.js';
import { attemptsNote, callView, decisionNote, iso, printJson, printTable } from './output.js';

const limitSchema = z.coerce
  .number({ error: 'must be a number' })
  .int({ error: 'must be a whole number' })
  .min(1, { error: 'must be at least 1' })
  .max(1000, { error: 'must be at most 1000' });

function describeFields(extra: Record<string, unknown>, fields: Record<string, unknown>): string {
  const all = { ...fields, ...extra };
  return Object.entries(all)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

export const callsCommand = defineCommand({
  meta: commandMeta('calls'),
  args: {
    account: { type: 'string', description: 'Only this account (user_id)' },
    limit: { type: 'string', description: 'How many entries (1 to 1000)', default: '20' },
    json: { type: 'boolean', description: 'Print machine-readable JSON' },
  },
  run: ({ args }) =>
    withStores(async (stores) => {
      const limit = parseArg(limitSchema, args.limit, '--limit');
      if (args.account !== undefined && !USER_ID_PATTERN.test(args.account))
        throw new UserError(`--account: "${args.account}" is not a user_id (32 hex characters)`);
      if (args.account !== undefined && !(await stores.accounts.get(args.account)))
        throw new UserError(`--account: no account with user_id ${args.account}`);
      const calls = await stores.calls.list({ ...(args.account !== undefined && { userId: args.account }), limit });
      if (args.json) {
        const keys = await keyPressesOf(stores.progress, calls);
        return printJson(
          calls.map((c) => ({
            ...callView(c),
            held_until: c.heldUntil === null ? null : iso(c.heldUntil),
            keys: (keys.get(c.callId) ?? []).map((k) => ({ key: k.key, at: iso(k.at), did: k.did })),
          })),
        );
      }
      if (calls.length === 0) return void process.stdout.write('No calls yet.\n');
      printTable(
        calls.map((c) => ({
          received_at: iso(c.receivedAt),
          call_id: c.callId,
          account: c.userId.slice(0, 8),
          status: c.status + (c.sipCode ? ` (${c.sipCode})` : '') + attemptsNote(c) + decisionNote(c),
          sms: c.smsStatus ? smsStatusWords(c.smsStatus, c.smsError) : '',
          message: c.message.length > 60 ? `${c.message.slice(0, 59)}…` : c.message,
          fields: describeFields(c.extra, {
            ticker: c.ticker,
            price: c.price,
            action: c.action,
            strategy: c.strategy,
            timestamp: c.alertTimestamp,
          }),
          // Last, as it is the longest: the sentence; its technical detail is in --json (reason_detail).
          reason: c.error ?? '',
        })),
        ['received_at', 'call_id', 'account', 'status', 'sms', 'message', 'fields', 'reason'],
      );
    }),
});
