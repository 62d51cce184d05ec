// ringhook test-call <user_id>: queues a test call for the running `serve` to place, and shows
// its progress live until it ends.
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import { z } from 'zod';
import { UserError } from '../lib/errors.js';
import { followTestCall, requestTestCall } from '../app/test-call.js';
import { receivesCalls } from '../core/account.js';
import { serveHolds } from '../app/instance-lock.js';
import { requireAccount } from './context.js';
import { parseArg, withStores } from './context.js';
import { printJson } from './output.js';

const secondsSchema = z.coerce
  .number({ error: 'must be a number of seconds' })
  .int({ error: 'must be whole seconds' })
  .min(1, { error: 'must be at least 1' })
  .max(600, { error: 'must be at most 600' });

export const testCallCommand = defineCommand({
  meta: commandMeta('test-call'),
  args: {
    user_id: { type: 'positional', description: 'The account to call', required: true },
    wait: { type: 'string', description: 'Seconds to wait for serve to pick the call up', default: '15' },
    json: { type: 'boolean', description: 'Print the final call as JSON', default: false },
  },
  run: ({ args }) =>
    withStores(async (stores, config) => {
      const account = await requireAccount(stores, args.user_id);
      const pickupMs = parseArg(secondsSchema, args.wait, '--wait') * 1000;
      // With SQLite only this data dir's serve can place it: none running, nothing is queued (it
      // would end failed, and count against the test calls allowed). Nodes sharing PostgreSQL may be anywhere.
      if (receivesCalls(account) && config.databaseUrl === null && !serveHolds(config.dataDir)) {
        throw new UserError(
          `no ringhook serve is running on the data dir ${config.dataDir}: start it (ringhook serve, or npm start), then try again`,
        );
      }
      const accepted = await requestTestCall(stores.calls, account);
      if (!accepted.accepted) {
        if (accepted.reason === 'suspended')
          throw new UserError(
            `the account ${account.userId} is suspended: no call is placed (ringhook account resume ${account.userId})`,
          );
        throw new UserError(`too many test calls: try again in ${accepted.retryAfterSeconds} s`);
      }
      const { progress } = stores;
      const started = accepted.receivedAt;
      const say = (at: number, text: string) =>
        !args.json && process.stderr.write(`${((at - started) / 1000).toFixed(1).padStart(5)} s  ${text}\n`);
      say(started, `test call ${accepted.callId} to ${account.phone}: queued`);
      const placed = await followTestCall(stores.progress, accepted, {
        pickupMs,
        onStep: (step) => say(step.at, step.detail ? `${step.event} (${step.detail})` : step.event),
      });
      if (!placed)
        throw new UserError(
          `nothing placed the call within ${pickupMs / 1000} s: is ringhook serve running with telephony on (RINGHOOK_TELEPHONY is not off)?`,
        );
      const final = (await stores.calls.get(accepted.callId))!;
      if (args.json)
        printJson({ call_id: final.callId, status: final.status, timeline: await progress.timeline(final.callId) });
      if (final.status === 'unconfirmed')
        throw new UserError(
          'the test call was answered, but 1 was not pressed to confirm (the account requires it: `account set --require-confirm off` to count an answer as heard)',
        );
      if (!['completed', 'acknowledged'].includes(final.status)) {
        throw new UserError(`the test call ended as ${final.status}${final.error ? `: ${final.error}` : ''}`);
      }
    }),
});
