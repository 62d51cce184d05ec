// ringhook serve: the webhook over HTTPS (and, with the next parts, the dialer and its Asterisk).
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import { loadConfig } from '../config/index.js';
import { creationNotice, noteEarlierInstall } from './data-dir.js';
import { createLogger } from '../lib/log.js';
import fs from 'node:fs';
import path from 'node:path';
import { LAUNCHER_NAME, pathDirs } from '../core/server/cli-launcher.js';
import { inSingleExecutable } from '../lib/assets.js';
import type { Config } from '../config/index.js';
import { startService, type RunningService } from '../app/service.js';
import { softphoneAddress } from '../config/index.js';
import type { Softphone } from '../app/managed-asterisk.js';

function softphonePasswordLine(softphone: Softphone): string {
  switch (softphone.passwordFrom) {
    case 'environment':
      return '  password: the one in RINGHOOK_SOFTPHONE_PASSWORD';
    case 'made now':
      return `  password: ${softphone.password}  (shown this once; kept in ${softphone.secretFile}; set RINGHOOK_SOFTPHONE_PASSWORD to choose one)`;
    case 'kept':
      return `  password: in ${softphone.secretFile} (shown on the first start only; set RINGHOOK_SOFTPHONE_PASSWORD to choose one)`;
  }
}

/** Whether the shell finds a runnable `name` on this PATH. */
function onPath(name: string): boolean {
  return pathDirs(process.env.PATH).some((dir) => {
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** What the operator should do next, printed once at start. */
async function nextSteps(config: Config, service: RunningService): Promise<string> {
  const accounts = await service.stores.accounts.count();
  const t = config.telephony;
  const softphone = service.telephony?.softphone;
  // The single executable is run by its own name; a checkout's CLI by the command install-cli put
  // on the PATH (npm start does), never through npx, which would ask the npm registry.
  const cli = inSingleExecutable() ? path.basename(process.execPath) : LAUNCHER_NAME;
  const lines = [
    '',
    ...(cli === LAUNCHER_NAME && !onPath(LAUNCHER_NAME)
      ? [
          `No ringhook command on your PATH: node ${path.relative(process.cwd(), process.argv[1] ?? 'bin/ringhook.js') || 'bin/ringhook.js'} install-cli puts one there`,
        ]
      : []),
    `ringhook is listening on https://${config.host}:${service.servers.httpsPort} (webhook URLs start with ${config.publicUrl}/webhook/)`,
    accounts === 0
      ? `Next: create an account (another terminal):  ${cli} account create --phone +14155550123 --plan premium`
      : `${accounts} account(s): ${cli} account list`,
  ];
  if (config.acme) {
    lines.push(
      `Certificate: from ${config.acme.directory} for ${config.acme.domains.join(', ')} (HTTP-01 on port ${config.httpPort}); renewed by itself. Dashboard: ${config.publicUrl}/ (sign in, copy your webhook URL into TradingView)`,
    );
  } else if (!config.publicUrlConfigured)
    lines.push(
      'Set RINGHOOK_PUBLIC_URL to the https address the charting platform reaches, e.g. https://alerts.example.com',
    );
  if (t.mode === 'off')
    lines.push('Telephony is off (RINGHOOK_TELEPHONY=off): alerts are accepted and recorded, no call is placed.');
  else if (!t.trunk && softphone) {
    lines.push(
      `No SIP trunk (RINGHOOK_TRUNK_URI): calls ring a softphone registered as ${softphone.username} at ${softphoneAddress(t)}`,
      softphonePasswordLine(softphone),
      '  To call real phones, add a trunk: RINGHOOK_TRUNK_URI=sip:sip.provider.example RINGHOOK_TRUNK_USERNAME=… RINGHOOK_TRUNK_PASSWORD=… RINGHOOK_TRUNK_REGISTER=on',
    );
  } else if (t.trunk) lines.push(`Calls go out through ${t.trunk.uri}.`);
  lines.push(`Check every part with: ${cli} doctor`, 'Stop with Ctrl-C.', '');
  return lines.join('\n');
}

export const serveCommand = defineCommand({
  meta: commandMeta('serve'),
  args: {},
  run: async () => {
    const config = loadConfig();
    const logger = createLogger({ level: config.logLevel });
    if (config.unknownVariables.length > 0) {
      logger.warn('RINGHOOK_ variables that ringhook does not read are set, and ignored: a misspelling?', {
        variables: config.unknownVariables,
      });
    }
    noteEarlierInstall(config);
    const made = creationNotice(config);
    const service = await startService(config, logger);
    if (made) process.stderr.write(made);
    const { httpsPort, httpPort } = service.servers;
    logger.info('ringhook is serving', {
      https: `${config.host}:${httpsPort}`,
      http:
        httpPort === null
          ? null
          : `${config.host}:${httpPort} (${config.acme ? 'answers ACME challenges, redirects the rest to HTTPS' : 'answers 403 HTTPS is required, except to trusted proxies'})`,
      public_url: config.publicUrl,
      data_dir: config.dataDir,
      data_dir_from: config.dataDirOrigin,
    });
    // Ready to stop before it says how to: a SIGTERM sent as soon as "Stop with Ctrl-C" is read
    // found no handler yet when it came between the two, and killed serve uncleanly (exit by signal).
    const stopped = new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info('stopping', { signal });
        service.stop().then(resolve, (error) => {
          logger.error('error while stopping', { error });
          resolve();
        });
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    process.stderr.write(await nextSteps(config, service));
    await stopped;
    logger.info('stopped');
  },
});
