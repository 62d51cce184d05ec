// ringhook account …: create, list, show, set, suspend, resume, regenerate, delete.
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import { nameSchema, phoneSchema, planSchema, webhookUrl, type Account } from '../core/account.js';
import { DEFAULT_LANGUAGE, defaultVoice, JAPANESE_NOTE } from '../core/speech/languages.js';
import { UserError } from '../lib/errors.js';
import { serveHolds } from '../app/instance-lock.js';
import type { Config } from '../config/index.js';
import type { Stores } from '../app/open-stores.js';
import type { HeldEnd } from '../store/index.js';
import { onOffSchema, parseArg, requireAccount, withStores } from './context.js';
import { accountView, iso, printFields, printJson, printTable } from './output.js';
import { applyDashboardOptions, loginLinkCommand } from './owner-auth.js';
import { smsGatewayNow, warnSmsBackupOn } from './sms-promise.js';
import { smsBackupWarning } from '../core/delivery/sms-truth.js';
import { applyCallbackOptions, callbackArgs, callbackFields, callbackUrlArg } from './callback-args.js';
import {
  backupPhoneChanges,
  ownerControlArgs,
  ownerControlChanges,
  ringAgainArgs,
  ringAgainChanges,
} from './owner-control-args.js';
import { askBackupPerson } from './backup-person.js';
import { quietHoursArgs, quietHoursChanges } from './quiet-hours-args.js';
import {
  decisionArgs,
  decisionChange,
  decisionSetChanges,
  noteIdleKeys,
  refuseDecisionOnCreate,
} from './decision-args.js';
import { languageArgs, voiceChanges } from './voice-args.js';

const jsonArg = { json: { type: 'boolean', description: 'Print machine-readable JSON', default: false } } as const;
const userIdArg = {
  user_id: { type: 'positional', description: "The account's user_id (32 hex characters)", required: true },
} as const;

async function showAccount(
  account: Account,
  config: Pick<Config, 'publicUrl' | 'telephony' | 'sms'>,
  json: boolean,
  stores: Stores,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const usage = await stores.calls.usage(account.userId);
  const callerId = config.telephony.callerId ?? null;
  const held = await stores.held.heldFor(account.userId);
  const view = {
    ...accountView(account, config.publicUrl, await smsGatewayNow(stores, config)),
    held_alerts: held.count,
    held_until: held.until === null ? null : iso(held.until),
    ...(held.ends.length > 1 && { held_ends: heldEnds(held.ends, json) }),
    calls_this_month: usage.used,
    month_resets_at: iso(usage.resetsAt),
    caller_id: callerId,
    ...(await callbackFields(stores, account.userId)),
    ...extra,
  };
  if (json) printJson(view);
  else printFields(view);
}

/** Alerts held under quiet hours since changed keep their own end: each end with its count, soonest first. */
function heldEnds(ends: readonly HeldEnd[], json: boolean) {
  const list = ends.map((e) => ({ until: iso(e.until), alerts: e.count }));
  return json ? list : list.map((e) => `${e.alerts} until ${e.until}`).join(', ');
}

/** Chosen Japanese: what its calls speak and what they leave out (kanji, which espeak-ng cannot read). */
function noteLanguage(account: Account, given: string | undefined): void {
  if (given !== undefined && account.language === 'ja') process.stderr.write(`${JAPANESE_NOTE}\n`);
}

/** Phones that silence unknown callers would silence the alert: say which number to save. */
function printCallerIdAdvice(config: Pick<Config, 'telephony'>): void {
  const callerId = config.telephony.callerId;
  process.stderr.write(
    callerId
      ? `Save ${callerId} in the phone's contacts (e.g. as "ringhook alerts") and let it through Do Not Disturb and "silence unknown callers".\n`
      : 'No caller id is set (RINGHOOK_CALLER_ID): the phone shows whatever number the provider sends, which may change; set one so that the owner can save it as a contact and let it through Do Not Disturb.\n',
  );
}

/** `--sms-backup on|off`; given last with no value (citty then gives ''), on, as it always was. */
function smsBackupOnCreate(given: string | undefined): boolean {
  if (given === undefined) return false;
  return parseArg(onOffSchema, given === '' ? 'on' : given, '--sms-backup') === 'on';
}

const create = defineCommand({
  meta: { name: 'create', description: 'Create an account and print its webhook URL' },
  args: {
    phone: { type: 'string', description: 'Phone number to call, E.164 (e.g. +14155550123)', required: true },
    plan: {
      type: 'string',
      description: 'free (3 calls a month, 1 a minute) or premium (unlimited, 10 a minute)',
      default: 'free',
    },
    'sms-backup': {
      type: 'string',
      description: 'on or off (off when not given): send an SMS when the call is missed',
    },
    'require-confirm': {
      type: 'string',
      description:
        'on (default) or off: a call counts as heard only when 1 is pressed; without it, an answered call ends unconfirmed and the SMS backup goes out',
      default: 'on',
    },
    name: { type: 'string', description: 'A name for the account', default: '' },
    ...languageArgs,
    ...ownerControlArgs,
    ...ringAgainArgs,
    ...quietHoursArgs,
    ...decisionArgs,
    ...jsonArg,
  },
  run: ({ args }) => {
    // Every argument checked before the data dir is opened: a mistake makes no data dir.
    refuseDecisionOnCreate(decisionChange(args));
    const speech = voiceChanges({ language: DEFAULT_LANGUAGE, voice: defaultVoice(DEFAULT_LANGUAGE) }, args);
    const phone = parseArg(phoneSchema, args.phone, '--phone');
    const fields = {
      ...speech,
      phone,
      plan: parseArg(planSchema, args.plan, '--plan'),
      smsBackup: smsBackupOnCreate(args['sms-backup']),
      requireConfirm: parseArg(onOffSchema, args['require-confirm'], '--require-confirm') === 'on',
      name: parseArg(nameSchema, args.name, '--name'),
      ...ownerControlChanges(args),
      ...ringAgainChanges(args),
      ...backupPhoneChanges(args, undefined, phone),
      ...quietHoursChanges(args),
    };
    return withStores(
      async (stores, config) => {
        const account = await stores.accounts.create(fields);
        await showAccount(account, config, args.json, stores);
        await askBackupPerson(stores, account, args.json);
        warnSmsBackupOn(account, await smsGatewayNow(stores, config));
        noteLanguage(account, args.language);
        if (!args.json)
          process.stderr.write('Keep the webhook URL secret: anyone who has it can make the phone ring.\n');
        if (!args.json) printCallerIdAdvice(config);
      },
      { creates: true },
    );
  },
});

const list = defineCommand({
  meta: { name: 'list', description: 'List the accounts' },
  args: { ...jsonArg },
  run: ({ args }) =>
    withStores(async (stores, config) => {
      const accounts = await stores.accounts.list();
      const sms = await smsGatewayNow(stores, config);
      if (args.json) return printJson(accounts.map((a) => accountView(a, config.publicUrl, sms)));
      const smsWorks = smsBackupWarning(sms, 'admin') === null;
      if (accounts.length === 0)
        return void process.stdout.write(
          'No accounts yet: create one with ringhook account create --phone +14155550123\n',
        );
      printTable(
        accounts.map((a) => ({
          user_id: a.userId,
          name: a.name,
          phone: a.phone,
          plan: a.plan,
          sms_backup: a.smsBackup
            ? smsWorks
              ? 'on'
              : `on (${sms.state === 'failing' ? 'gateway failing' : 'no SMS here'})`
            : 'off',
          require_confirm: a.requireConfirm ? 'on' : 'off',
          status: a.status,
          created_at: iso(a.createdAt),
        })),
        ['user_id', 'name', 'phone', 'plan', 'sms_backup', 'require_confirm', 'status', 'created_at'],
      );
    }),
});

const show = defineCommand({
  meta: { name: 'show', description: "Show an account, its webhook URL and this month's usage" },
  args: { ...userIdArg, ...jsonArg },
  run: ({ args }) =>
    withStores(async (stores, config) => {
      await showAccount(await requireAccount(stores, args.user_id), config, args.json, stores);
      if (!args.json) printCallerIdAdvice(config);
    }),
});

const set = defineCommand({
  meta: {
    name: 'set',
    description:
      "Change an account's plan, phone, SMS backup, confirmation, name, language, voice, intro, duplicate window, allowed sources, ring again, backup person, quiet hours, status callbacks or decision keys",
  },
  args: {
    ...userIdArg,
    plan: { type: 'string', description: 'free or premium' },
    phone: { type: 'string', description: 'Phone number, E.164' },
    'sms-backup': { type: 'string', description: 'on or off' },
    'require-confirm': {
      type: 'string',
      description:
        'on or off: a call counts as heard only when 1 is pressed (else it ends unconfirmed, with the SMS backup)',
    },
    name: { type: 'string', description: 'A name for the account' },
    ...languageArgs,
    ...ownerControlArgs,
    ...ringAgainArgs,
    ...quietHoursArgs,
    ...callbackArgs,
    ...decisionArgs,
    password: {
      type: 'boolean',
      description: 'Set the dashboard password (asked for, or read from stdin; never an argument)',
    },
    admin: { type: 'string', description: 'on or off: the account sees every account in the dashboard (read-only)' },
    ...jsonArg,
  },
  run: ({ args }) =>
    withStores(async (stores, config) => {
      const account = await requireAccount(stores, args.user_id);
      const phone = args.phone !== undefined ? parseArg(phoneSchema, args.phone, '--phone') : account.phone;
      const changes = {
        ...(args.plan !== undefined && { plan: parseArg(planSchema, args.plan, '--plan') }),
        ...(args.phone !== undefined && { phone }),
        ...(args['sms-backup'] !== undefined && {
          smsBackup: parseArg(onOffSchema, args['sms-backup'], '--sms-backup') === 'on',
        }),
        ...(args['require-confirm'] !== undefined && {
          requireConfirm: parseArg(onOffSchema, args['require-confirm'], '--require-confirm') === 'on',
        }),
        ...(args.name !== undefined && { name: parseArg(nameSchema, args.name, '--name') }),
        ...voiceChanges(account, args),
        ...ownerControlChanges(args),
        ...ringAgainChanges(args),
        ...backupPhoneChanges(args, account, phone),
        ...quietHoursChanges(args),
      };
      const callbackUrl = callbackUrlArg(args);
      Object.assign(changes, await decisionSetChanges(stores, account.userId, args, callbackUrl));
      const callbackShown = await applyCallbackOptions(
        stores,
        account.userId,
        callbackUrl,
        args['rotate-callback-secret'] === true,
      );
      const dashboardChanged = await applyDashboardOptions(stores, account.userId, {
        password: args.password,
        admin: args.admin,
      });
      if (Object.keys(changes).length === 0 && !dashboardChanged && !callbackShown)
        throw new UserError(
          'nothing to change: give --plan, --phone, --sms-backup, --require-confirm, --name, --language, --voice, --intro, --dedupe, --sources, --ring-again, --ring-again-after, --backup-phone, --quiet-hours, --timezone, --quiet-mode, --callback-url, --rotate-callback-secret, --keys, --decision-pin, --password or --admin',
        );
      const shown = (
        Object.keys(changes).length > 0 ? await stores.accounts.update(account.userId, changes) : account
      )!;
      await showAccount(shown, config, args.json, stores, callbackShown ?? {});
      if (shown.backupPhone !== account.backupPhone) await askBackupPerson(stores, shown, args.json);
      if (callbackShown?.callback_secret && !args.json)
        process.stderr.write(
          'Keep the callback secret now: it is not shown again (--rotate-callback-secret makes a new one).\n',
        );
      if (changes.smsBackup === true) warnSmsBackupOn(shown, await smsGatewayNow(stores, config));
      noteLanguage(shown, args.language);
      noteIdleKeys(shown, callbackUrl, args.json);
    }),
});

function statusCommand(name: 'suspend' | 'resume', status: Account['status'], description: string) {
  return defineCommand({
    meta: { name, description },
    args: { ...userIdArg, ...jsonArg },
    run: ({ args }) =>
      withStores(async (stores, config) => {
        const account = await requireAccount(stores, args.user_id);
        await showAccount((await stores.accounts.update(account.userId, { status }))!, config, args.json, stores);
      }),
  });
}

const regenerate = defineCommand({
  meta: {
    name: 'regenerate',
    description:
      'Issue a new api_key: the old webhook URL answers 401 at once (--all: every account, also when the secret key is lost)',
  },
  args: {
    user_id: { type: 'positional', description: "The account's user_id (32 hex characters)", required: false },
    all: {
      type: 'boolean',
      description: 'Every account, sealed with the current secret key (what to do when the old key is lost)',
      default: false,
    },
    yes: { type: 'boolean', description: 'Confirm --all', default: false },
    ...jsonArg,
  },
  run: ({ args }) => {
    if (args.all) return regenerateAll(args.user_id, args.yes, args.json);
    if (!args.user_id) throw new UserError('give the user_id of the account, or --all for every account');
    return withStores(async (stores, config) => {
      const account = await requireAccount(stores, args.user_id!);
      await showAccount((await stores.accounts.regenerateKey(account.userId))!, config, args.json, stores);
      if (!args.json)
        process.stderr.write('The old webhook URL no longer works: paste the new one into every alert that used it.\n');
    });
  },
});

function regenerateAll(userId: string | undefined, yes: boolean, json: boolean) {
  if (userId) throw new UserError('give either a user_id or --all, not both');
  if (!yes) throw new UserError('add --yes to give every account a new api_key: every webhook URL changes');
  // Opened without checking the secret key: its old keys are replaced, not read.
  return withStores(
    async (stores, config) => {
      // A serve running with another key (RINGHOOK_SECRET_KEY in its unit's environment, not in
      // this shell's) would answer 401 to every webhook, then refuse to start again.
      if (stores.kind === 'sqlite' && serveHolds(config.dataDir))
        throw new UserError(
          `ringhook serve is running on ${config.dataDir}: stop it first (and run this with its environment, RINGHOOK_SECRET_KEY included), so that it starts again with the key the new api_keys are sealed with`,
        );
      const accounts = await stores.accounts.regenerateAllKeys();
      const sms = await smsGatewayNow(stores, config);
      if (json) return printJson(accounts.map((a) => accountView(a, config.publicUrl, sms)));
      printTable(
        accounts.map((a) => ({ user_id: a.userId, webhook_url: webhookUrl(config.publicUrl, a) })),
        ['user_id', 'webhook_url'],
      );
      process.stderr.write(`${accounts.length} account(s) have a new webhook URL: the old ones no longer work.\n`);
    },
    { lostSecretKey: true },
  );
}

const remove = defineCommand({
  meta: { name: 'delete', description: 'Delete an account and its call history' },
  args: { ...userIdArg, yes: { type: 'boolean', description: 'Confirm the deletion', default: false }, ...jsonArg },
  run: ({ args }) =>
    withStores(async (stores) => {
      const account = await requireAccount(stores, args.user_id);
      if (!args.yes)
        throw new UserError(
          `add --yes to delete account ${account.userId} (${account.phone}) and its whole call history`,
        );
      await stores.accounts.delete(account.userId);
      if (args.json) printJson({ deleted: true, user_id: account.userId });
      else process.stdout.write(`Deleted account ${account.userId}.\n`);
    }),
});

export const accountCommand = defineCommand({
  meta: commandMeta('account'),
  subCommands: {
    create,
    list,
    show,
    set,
    suspend: statusCommand('suspend', 'suspended', 'Suspend an account: its webhook answers 403 and no call is placed'),
    resume: statusCommand('resume', 'active', 'Resume a suspended account'),
    regenerate,
    delete: remove,
    'login-link': loginLinkCommand,
  },
});
