// ringhook callbacks test <user_id>: sends one signed test event to the account's callback URL now
// (not through the outbox) and prints what the receiver answered; the delivery is listed on the dashboard.
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import { callbackBody, newCallbackMessageId } from '../core/callbacks/callback-events.js';
import { callbackVerdict, CALLBACK_TIMEOUT_MS } from '../core/callbacks/callback-retry.js';
import { sendSigned } from '../callbacks/index.js';
import { UserError } from '../lib/errors.js';
import { requireAccount, withStores } from './context.js';
import { printJson } from './output.js';

const test = defineCommand({
  meta: { name: 'test', description: "Send a signed test event to an account's callback URL and print the answer" },
  args: {
    user_id: { type: 'positional', description: 'The account whose callback URL gets the event', required: true },
    json: { type: 'boolean', description: 'Print machine-readable JSON', default: false },
  },
  run: ({ args }) =>
    withStores(async (stores, config) => {
      const account = await requireAccount(stores, args.user_id);
      const settings = await stores.callbacks.settings(account.userId);
      if (!settings?.url)
        throw new UserError(
          `account ${account.userId} has no callback URL${settings?.offNote ? ` (${settings.offNote})` : ''}: set one with ringhook account set ${account.userId} --callback-url https://…`,
        );
      const now = Date.now();
      const messageId = newCallbackMessageId();
      const body = callbackBody('callback.test', now, { user_id: account.userId, test: true });
      const result = await sendSigned(
        { url: settings.url, secrets: settings.secrets, messageId, body, now },
        { allow: config.callbackAllow, timeoutMs: CALLBACK_TIMEOUT_MS },
      );
      const status = result.kind === 'answered' ? result.status : null;
      const verdict = result.kind === 'refused' ? 'refused' : callbackVerdict(status);
      // Listed on the dashboard with its outcome; never sent again by the outbox.
      await stores.callbacks.keepSent(
        {
          messageId,
          eventKey: `test:${messageId}`,
          userId: account.userId,
          callId: null,
          type: 'callback.test',
          body,
          createdAt: now,
        },
        {
          status: verdict === 'delivered' ? 'delivered' : verdict === 'gone' ? 'gone' : 'failed',
          at: Date.now(),
          nextAttemptAt: now,
          httpStatus: status,
          error: result.kind === 'answered' ? (status! >= 300 ? `HTTP ${status}` : null) : result.reason,
        },
      );
      const view = {
        url: settings.url,
        message_id: messageId,
        result: verdict,
        http_status: status,
        ...(result.kind === 'answered' ? { answer: result.body, address: result.address } : { reason: result.reason }),
      };
      if (args.json) printJson(view);
      else if (result.kind === 'answered')
        process.stdout.write(
          `${settings.url} answered ${status} (${verdict}) from ${result.address}:\n${result.body}\n`,
        );
      if (result.kind !== 'answered')
        throw new UserError(`the test event was not delivered to ${settings.url}: ${result.reason}`);
      if (verdict !== 'delivered') process.exitCode = 1;
    }),
});

export const callbacksCommand = defineCommand({
  meta: commandMeta('callbacks'),
  subCommands: { test },
});
