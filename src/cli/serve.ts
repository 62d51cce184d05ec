// ringhook serve: the webhook over HTTPS (and, with the next parts, the dialer and its Asterisk).
import { defineCommand } from 'citty';
import { loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import { startService } from '../service.js';

export const serveCommand = defineCommand({
  meta: { name: 'serve', description: 'Run the service: the HTTPS webhook (configured by RINGHOOK_* variables, see the README)' },
  args: {},
  run: async () => {
    const config = loadConfig();
    const logger = createLogger({ level: config.logLevel });
    const service = await startService(config, logger);
    const { httpsPort, httpPort } = service.servers;
    logger.info('ringhook is serving', {
      https: `${config.host}:${httpsPort}`,
      http: httpPort === null ? null : `${config.host}:${httpPort} (answers 403 HTTPS is required, except to trusted proxies)`,
      public_url: config.publicUrl,
      data_dir: config.dataDir,
    });
    const accounts = service.stores.accounts.list().length;
    process.stderr.write(
      [
        '',
        `ringhook is listening on https://${config.host}:${httpsPort} (webhook URLs start with ${config.publicUrl}/webhook/)`,
        accounts === 0
          ? 'Next: create an account in another terminal:  npx ringhook account create --phone +14155550123 --plan free'
          : `${accounts} account(s); see them with: npx ringhook account list`,
        config.publicUrlConfigured ? '' : 'Set RINGHOOK_PUBLIC_URL to the address the charting platform reaches (e.g. https://alerts.example.com).',
        'Stop with Ctrl-C.',
        '',
      ].filter((line, i, all) => line !== '' || i === 0 || i === all.length - 1).join('\n'),
    );

    await new Promise<void>((resolve) => {
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
    logger.info('stopped');
  },
});
