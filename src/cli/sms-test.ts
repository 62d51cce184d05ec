// ringhook sms-test <user_id>: sends one test SMS through the configured gateway.
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import { loadConfig } from '../config/index.js';
import { UserError } from '../lib/errors.js';
import { createLogger } from '../lib/log.js';
import { openStores } from '../app/open-stores.js';
import { requireAccount } from './context.js';
import { printJson } from './output.js';

export const SMS_TEST_TEXT = 'Test message from ringhook: SMS backup works.';

export const smsTestCommand = defineCommand({
  meta: commandMeta('sms-test'),
  args: {
    user_id: { type: 'positional', description: 'The account whose phone gets the SMS', required: true },
    json: { type: 'boolean', description: 'Print machine-readable JSON', default: false },
  },
  run: async ({ args }) => {
    const config = loadConfig();
    if (config.sms.gateway === 'none')
      throw new UserError('no SMS gateway is configured: set RINGHOOK_SMS_GATEWAY to http or smpp (see docs/sms.md)');
    const stores = await openStores(config);
    let phone: string;
    try {
      phone = (await requireAccount(stores, args.user_id)).phone;
    } finally {
      await stores.close();
    }
    // Imported here: the telephony wiring costs about 0.4 s of CPU, which --help and a refusal above do without.
    const { smsSenderFor } = await import('../app/telephony.js');
    // With the receipt token, so that the gateway's receipt for it is not refused as a stranger's.
    const sender = await smsSenderFor(config, createLogger({ level: 'warn' }));
    try {
      const result = await sender.send({ to: phone, text: SMS_TEST_TEXT, reference: `sms-test-${Date.now()}` });
      if (args.json) printJson({ to: phone, ...result });
      if (result.status === 'failed') throw new UserError(`the gateway did not take the SMS: ${result.error}`);
      if (!args.json)
        process.stdout.write(
          `SMS handed to the ${sender.kind} gateway for ${phone} (message id ${result.messageId ?? 'none'}, ${result.parts} part(s)).\n`,
        );
    } finally {
      // What the gateway did with the SMS is told already; a link that fails to close dies with this process.
      await sender.close().catch(() => {});
    }
  },
});
