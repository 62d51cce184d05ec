// A managed Asterisk process: renders ringhook's config into a run dir, starts Asterisk (from the
// provisioned root file system with chroot, or the host's binary), waits until ARI answers,
// restarts it with capped backoff if it dies, and stops it on shutdown. Should serve die instead,
// a watchdog beside it hangs its calls up and stops it (asterisk-watchdog.ts).
//
// Chroot mode runs Asterisk inside a private mount namespace (`unshare --mount`): the bind mounts
// of /proc, /dev, the run dir and the media dir exist only in that namespace, so they vanish with
// the process however it ends (even SIGKILL of ringhook) and never leak into the host's mount table.
// Run by an unprivileged user, the same happens inside a user namespace of its own (`unshare --user
// --map-root-user`), where that user is root over what it owns: the root file system must be its
// (provision-asterisk.sh with RINGHOOK_ASTERISK_OWNER), and nothing else is gained.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdir, readFile, rename, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { backoffDelay } from '../core/backoff.js';
import { basicAuth } from '../lib/basic-auth.js';
import { sleep } from '../lib/sleep.js';
import { AsteriskInfo } from './ari-schema.js';
import type { Logger } from '../lib/log.js';
import { readAsset } from '../lib/assets.js';
import {
  renderAsteriskConfig,
  TEMPLATE_FILES,
  type AsteriskConfigInput,
  type AsteriskTemplates,
} from './asterisk-config.js';
import { type AsteriskRuntime, asteriskCommand } from './asterisk-runtime.js';
import { type AsteriskWatchdog, startWatchdog, stopLeftover } from './asterisk-watchdog.js';

/** The Asterisk config templates (asterisk/*.conf). */
export function asteriskTemplates(): AsteriskTemplates {
  return Object.fromEntries(TEMPLATE_FILES.map((f) => [f, readAsset(`asterisk/${f}`)])) as AsteriskTemplates;
}

export async function loadAsteriskTemplates(dir: string): Promise<AsteriskTemplates> {
  const entries = await Promise.all(
    TEMPLATE_FILES.map(async (f) => [f, await readFile(join(dir, f), 'utf8')] as const),
  );
  return Object.fromEntries(entries) as AsteriskTemplates;
}

export interface ManagedAsteriskOptions {
  runtime: AsteriskRuntime;
  /** Asterisk's files go to <dataDir>/asterisk (etc, lib, spool, run, log). Absolute, short. */
  dataDir: string;
  /** Audio files; seen by Asterisk at the same absolute path (play with sound:<path-no-ext>). */
  mediaDir: string;
  templates: AsteriskTemplates;
  /** Everything of the config but runDir, which is derived from dataDir. */
  config: Omit<AsteriskConfigInput, 'runDir'>;
  logger: Logger;
  readyTimeoutMs?: number;
  restartBackoff?: { initialMs: number; maxMs: number };
  /** How long a run must last before the restart backoff is reset. */
  stableAfterMs?: number;
}

export interface ManagedAsteriskEvents {
  ready: [{ pid: number; startedInMs: number; restarts: number }];
  exit: [{ code: number | null; signal: NodeJS.Signals | null; expected: boolean }];
}

export class ManagedAsterisk extends EventEmitter<ManagedAsteriskEvents> {
  readonly runDir: string;
  readonly ariUrl: string;
  private readonly opts: Required<Pick<ManagedAsteriskOptions, 'readyTimeoutMs' | 'restartBackoff' | 'stableAfterMs'>> &
    ManagedAsteriskOptions;
  private child: ChildProcess | undefined;
  private watchdog: AsteriskWatchdog | undefined;
  private stopping = false;
  private restarts = 0;
  /** Restarts in a row without a stable run between them. */
  private failuresInRow = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly outputTail: string[] = [];
  version: string | undefined;

  constructor(options: ManagedAsteriskOptions) {
    super();
    this.opts = {
      readyTimeoutMs: 30_000,
      restartBackoff: { initialMs: 250, maxMs: 10_000 },
      stableAfterMs: 30_000,
      ...options,
    };
    this.runDir = join(options.dataDir, 'asterisk');
    const host = options.config.http.bindAddress ?? '127.0.0.1';
    this.ariUrl = `http://${host}:${options.config.http.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get ariCredentials(): { user: string; password: string } {
    return { user: this.opts.config.ari.user, password: this.opts.config.ari.password };
  }

  /** Renders the config, starts Asterisk and resolves once ARI answers. */
  async start(): Promise<void> {
    this.stopping = false;
    await this.writeConfig();
    await this.stopLeftover();
    try {
      await this.launch();
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Stops Asterisk (SIGTERM, then SIGKILL after a grace period) and stops supervising it. */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.watchdog?.dismiss();
    this.watchdog = undefined;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    }
    this.child = undefined;
    await this.removeMountPoints();
  }

  private async writeConfig(): Promise<void> {
    const files = renderAsteriskConfig({ ...this.opts.config, runDir: this.runDir }, this.opts.templates);
    for (const sub of ['etc', 'lib', 'spool', 'run', 'log']) {
      await mkdir(join(this.runDir, sub), { recursive: true, mode: 0o700 });
    }
    await mkdir(this.opts.mediaDir, { recursive: true });
    for (const [name, text] of Object.entries(files)) {
      const target = join(this.runDir, 'etc', name);
      await writeFile(`${target}.tmp`, text, { mode: 0o600 });
      await rename(`${target}.tmp`, target);
    }
  }

  // An Asterisk left running on this run dir (ringhook and its watchdog killed without a chance to
  // stop it) holds the ports, the control socket and maybe calls: it hangs them up and stops
  // before a new one starts.
  private async stopLeftover(): Promise<void> {
    const pidFile = join(this.runDir, 'run', 'asterisk.pid');
    let pid: number;
    try {
      pid = Number((await readFile(pidFile, 'utf8')).trim());
    } catch {
      return;
    }
    if (!Number.isInteger(pid) || pid <= 1) return;
    let cmdline = '';
    try {
      cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ');
    } catch {
      return; // not running
    }
    if (!cmdline.includes('asterisk') || !cmdline.includes(this.runDir)) return;
    this.opts.logger.warn('stopping a leftover Asterisk on this run dir (its calls are hung up)', { pid });
    const how = await stopLeftover(this.opts.runtime, pid, this.configFile);
    this.opts.logger.info('leftover Asterisk stopped', { pid, how });
  }

  private get configFile(): string {
    return join(this.runDir, 'etc', 'asterisk.conf');
  }

  private command(): { file: string; args: string[] } {
    return asteriskCommand(this.opts.runtime, this.configFile, [this.runDir, this.opts.mediaDir]);
  }

  private async launch(): Promise<void> {
    const started = Date.now();
    const { file, args } = this.command();
    const log = this.opts.logger;
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    // Ends this Asterisk's calls and stops it should serve die; dismissed when Asterisk exits first.
    const watchdog =
      child.pid === undefined ? undefined : startWatchdog(this.opts.runtime, child.pid, this.configFile, log);
    this.watchdog = watchdog;
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        this.outputTail.push(line);
        if (this.outputTail.length > 40) this.outputTail.shift();
        log.debug('asterisk output', { line });
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('error', (error) => {
        log.error('could not start Asterisk', { error, file });
        resolve({ code: null, signal: null });
      });
      child.once('exit', (code, signal) => {
        watchdog?.dismiss();
        resolve({ code, signal });
      });
    });
    void exited.then(({ code, signal }) => this.onExit(child, started, code, signal));

    const ready = await Promise.race([this.waitForAri(started).then(() => true), exited.then(() => false)]);
    if (!ready) {
      throw new Error(`Asterisk exited before ARI was ready: ${this.outputTail.slice(-10).join(' | ') || 'no output'}`);
    }
    const startedInMs = Date.now() - started;
    log.info('Asterisk ready', { pid: child.pid, startedInMs, version: this.version });
    this.emit('ready', { pid: child.pid!, startedInMs, restarts: this.restarts });
  }

  private onExit(child: ChildProcess, started: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    const expected = this.stopping;
    this.emit('exit', { code, signal, expected });
    if (expected) return;
    const ranMs = Date.now() - started;
    this.failuresInRow = ranMs >= this.opts.stableAfterMs ? 1 : this.failuresInRow + 1;
    const delay = backoffDelay(this.failuresInRow, this.opts.restartBackoff);
    this.opts.logger.warn('Asterisk exited; restarting', { code, signal, ranMs, delayMs: delay });
    this.restartTimer = setTimeout(() => {
      if (this.stopping) return;
      this.restarts++;
      this.launch().catch((error: unknown) => {
        // Started but ARI never answered: kill it, and onExit schedules the next try.
        if (this.stopping) return;
        this.opts.logger.error('Asterisk restart failed', { error });
        this.child?.kill('SIGKILL');
      });
    }, delay);
  }

  private async waitForAri(started: number): Promise<void> {
    const { user, password } = this.ariCredentials;
    const auth = basicAuth(user, password);
    const url = `${this.ariUrl}/ari/asterisk/info`;
    let last = '';
    while (Date.now() - started < this.opts.readyTimeoutMs) {
      const child = this.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return never();
      try {
        const res = await fetch(url, {
          headers: { authorization: auth },
          signal: AbortSignal.timeout(1_000),
        });
        if (res.ok) {
          const info = AsteriskInfo.safeParse(await res.json());
          this.version = info.success ? info.data.system.version : undefined;
          return;
        }
        last = `HTTP ${res.status}`;
        if (res.status === 401) {
          throw new Error(`ARI on ${this.ariUrl} refused our credentials: is another Asterisk using this port?`);
        }
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('ARI on')) throw error;
        last = error instanceof Error ? error.message : String(error);
      }
      await sleep(50);
    }
    throw new Error(`ARI on ${this.ariUrl} not ready after ${this.opts.readyTimeoutMs} ms (${last})`);
  }

  // Chroot mode leaves empty mount-point folders for the run and media dirs inside the root file
  // system; remove them (only if empty) so the cache does not fill with test folders.
  private async removeMountPoints(): Promise<void> {
    const rt = this.opts.runtime;
    if (rt.kind !== 'rootfs') return;
    for (const dir of [this.runDir, this.opts.mediaDir]) {
      let path = dir;
      // Top-level folders (/tmp, /root, /var) belong to the root file system itself.
      while (path.lastIndexOf('/') > 0) {
        try {
          await rmdir(join(rt.rootfs, path));
        } catch {
          break;
        }
        path = path.slice(0, path.lastIndexOf('/')) || '/';
      }
    }
  }
}

function never(): Promise<never> {
  return new Promise(() => {});
}
