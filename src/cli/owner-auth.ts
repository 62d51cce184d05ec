// Dashboard sign-in from the CLI: setting an owner's password (read from a hidden prompt, or from
// stdin when it is not a terminal; never from argv, which lands in shell history and ps), the admin
// flag, and one-time sign-in links.
import { defineCommand } from 'citty';
import { UserError } from '../lib/errors.js';
import { LOGIN_LINK_TTL_MS } from '../core/records.js';
import { passwordProblem } from '../store/index.js';
import type { Stores } from '../app/open-stores.js';
import { onOffSchema, parseArg, requireAccount, withStores } from './context.js';
import { iso, printJson } from './output.js';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads one line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let text = '';
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(text);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new UserError('cancelled'));
        if (ch === '\u007f' || ch === '\b') text = Array.from(text).slice(0, -1).join('');
        else if (ch >= ' ') text += ch;
      }
    };
    input.on('data', onData);
  });
}

/** The new password: twice from a terminal, or the first line of stdin. */
export async function readNewPassword(stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  let password: string;
  if (stdin.isTTY) {
    password = await promptHidden('New dashboard password: ');
    const again = await promptHidden('Repeat it: ');
    if (again !== password) throw new UserError('the two passwords differ; nothing was changed');
  } else {
    password = (await readAll(stdin)).split(/\r?\n/)[0] ?? '';
  }
  const problem = passwordProblem(password);
  if (problem) throw new UserError(`--password: ${problem} (nothing was changed)`);
  return password;
}

/** Applies --password and --admin of `account set`; true when one of them was given. */
export async function applyDashboardOptions(
  stores: Stores,
  userId: string,
  options: { password?: boolean; admin?: string | undefined },
): Promise<boolean> {
  const admin = options.admin === undefined ? undefined : parseArg(onOffSchema, options.admin, '--admin') === 'on';
  const password = options.password ? await readNewPassword() : undefined;
  const auth = stores.ownerAuth;
  if (password !== undefined) {
    await auth.setPassword(userId, password);
    await stores.sessions.deleteForAccount(userId);
    process.stderr.write(
      "Dashboard password set; the account's open dashboard sessions were signed out, and its unused sign-in links no longer work.\n",
    );
  }
  if (admin !== undefined) {
    await auth.setAdmin(userId, admin);
    process.stderr.write(
      admin
        ? 'The account is now an admin: it sees every account (read-only) in the dashboard.\n'
        : 'The account is no longer an admin.\n',
    );
  }
  return password !== undefined || admin !== undefined;
}

export const loginLinkCommand = defineCommand({
  meta: {
    name: 'login-link',
    description: `Print a one-time dashboard sign-in link (valid ${LOGIN_LINK_TTL_MS / 60_000} minutes, usable once)`,
  },
  args: {
    user_id: { type: 'positional', description: "The account's user_id (32 hex characters)", required: true },
    json: { type: 'boolean', description: 'Print machine-readable JSON', default: false },
  },
  run: ({ args }) =>
    withStores(async (stores, config) => {
      await requireAccount(stores, args.user_id);
      const { token, expiresAt } = await stores.ownerAuth.createLoginLink(args.user_id);
      const url = `${config.publicUrl}/login/link/${token}`;
      if (args.json) return printJson({ user_id: args.user_id, url, expires_at: iso(expiresAt) });
      process.stdout.write(`${url}\n`);
      process.stderr.write(`Valid until ${iso(expiresAt)}, for one sign-in. Send it to the account owner only.\n`);
    }),
});
