// The speech engines and sox, run by a few resident shell processes (one job at a time each)
// rather than by two new processes of serve's per message. Starting a process from serve copies
// serve's memory map: in the burst benchmark's profile that was ~20 ms of serve's CPU per process,
// more than the engine itself for a short message. The shell is started once per slot; each job is
// one line naming the step, the voice and a work directory under the cache dir (by its absolute
// path: the cache dir may be made again while the shell runs): an engine reads text.txt there (the
// text never reaches a command line) and writes raw.wav; `convert` has sox make out.wav in the
// telephone format from raw.wav. What a step prints goes to err.txt, never into the shell's reply:
// one line, the job and the step's exit status.
//
// flite's jobs go to the resident flite (flite-resident.ts) once it is built, in processes of
// their own that speak the same lines; a job it did not do (any status but 0: the shell then says
// why) or whose resident ended goes to the shells, and if no resident ever answered, the resident
// flite is not used again.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from '../lib/log.js';
import { RESIDENT_FLITE_VOICES } from './flite-resident.js';

export type SpeechStep = 'flite' | 'espeak-ng' | 'festival' | 'convert';

export interface SpeechJob {
  /** An engine makes raw.wav; `convert`: sox makes out.wav from it. */
  step: SpeechStep;
  /** Checked by the caller: no white space, no leading '-'. */
  voice: string;
  /** A directory name inside the cache dir, without white space. */
  dir: string;
}

/** The step's exit status: 0 done, 127 not found, 126 not executable. */
export type SpeechJobResult = number;

export interface SpeechBinaries {
  flite: string;
  'espeak-ng': string;
  festival: string;
  sox: string;
}

// flite's build for one voice (flite_cmu_us_kal, …) says the same as `flite -voice kal` with
// 40 % less CPU: it does not load and relocate the other voices at start. `silence 1 0.02 1%` cuts
// the ~200 ms of silence engines start with, up to the first 20 ms of sound above 1 % (an answered
// phone hears the first word at once); `norm -1` evens out the engines' very different loudness.
const SCRIPT = `
step_run() { "$@" >"$dir/err.txt" 2>&1 </dev/null || status=$?; }
while IFS=' ' read -r id step voice name; do
  status=0
  dir="$RH_CACHE/$name"
  case "$step" in
    flite)
      one=
      case "$voice" in *[!a-z0-9]*) ;; *) one="flite_cmu_us_$voice" ;; esac
      if [ "$RH_FLITE" = flite ] && [ -n "$one" ] && command -v "$one" >/dev/null 2>&1; then
        step_run "$one" -f "$dir/text.txt" -o "$dir/raw.wav"
      else
        step_run "$RH_FLITE" -voice "$voice" -f "$dir/text.txt" -o "$dir/raw.wav"
      fi ;;
    espeak-ng) step_run "$RH_ESPEAK_NG" -v "$voice" -f "$dir/text.txt" -w "$dir/raw.wav" ;;
    festival) step_run "$RH_TEXT2WAVE" -eval "(voice_$voice)" -o "$dir/raw.wav" "$dir/text.txt" ;;
    convert) step_run "$RH_SOX" "$dir/raw.wav" -r 8000 -c 1 -b 16 -e signed-integer "$dir/out.wav" silence 1 0.02 1% norm -1 ;;
  esac
  echo "$id $status"
done
`;

interface Pending {
  resolve: (result: SpeechJobResult) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** A job that got no answer: its process ended (or could not start), or it timed out. */
class SpeechWorkerError extends Error {
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

/** One resident process (a shell, or the resident flite): a job at a time. */
class SpeechWorker {
  private readonly child: ChildProcess;
  private pending: Pending | undefined;
  private seq = 0;
  dead = false;

  constructor(command: string, args: string[], cacheDir: string, env: Record<string, string>) {
    this.child = spawn(command, args, {
      cwd: cacheDir,
      // Its own process group, so that a job that hangs is killed with everything it started.
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', RH_CACHE: cacheDir, ...env },
    });
    // Serve may exit without stopping the workers: their stdin then ends, and so do they.
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout] as const)
      (stream as unknown as { unref?: () => void } | null)?.unref?.();
    this.child.on('error', (error) => this.fail(error.message));
    this.child.on('exit', () => this.fail('the speech process ended unexpectedly'));
    this.child.stdin?.on('error', () => {});
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.reply(line));
  }

  run(job: SpeechJob, timeoutMs: number): Promise<SpeechJobResult> {
    return new Promise((resolve, reject) => {
      if (this.dead) return reject(new SpeechWorkerError('the speech process ended unexpectedly', false));
      const id = ++this.seq;
      const timer = setTimeout(() => {
        this.kill();
        this.fail(`timed out after ${timeoutMs} ms`, true);
      }, timeoutMs);
      this.pending = { resolve, reject, timer };
      this.child.stdin!.write(`${id} ${job.step} ${job.voice} ${job.dir}\n`);
    });
  }

  kill(): void {
    this.dead = true;
    // A shell that has ended may have had its process group's id given to another.
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  private reply(line: string): void {
    const [id, status] = line.split(' ');
    const pending = this.pending;
    if (!pending || Number(id) !== this.seq) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    pending.resolve(Number(status));
  }

  private fail(why: string, timedOut = false): void {
    this.dead = true;
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.reject(new SpeechWorkerError(why, timedOut));
  }
}

/** Resident processes of one program; a new one is started when none is idle. */
class WorkerPool {
  private readonly idle: SpeechWorker[] = [];
  private readonly all = new Set<SpeechWorker>();

  constructor(private readonly start: () => SpeechWorker) {}

  async run(job: SpeechJob, timeoutMs: number): Promise<SpeechJobResult> {
    let worker = this.idle.pop();
    while (worker?.dead) {
      this.all.delete(worker);
      worker = this.idle.pop();
    }
    if (!worker) {
      worker = this.start();
      this.all.add(worker);
    }
    try {
      return await worker.run(job, timeoutMs);
    } finally {
      if (worker.dead) this.all.delete(worker);
      else this.idle.push(worker);
    }
  }

  close(): void {
    for (const worker of this.all) worker.kill();
    this.all.clear();
    this.idle.length = 0;
  }
}

export interface SpeechWorkersOptions {
  /** Builds the resident flite and gives its path; unset: flite runs from the shells. */
  buildResidentFlite?: () => Promise<string>;
  logger?: Logger;
}

/**
 * The shells and the resident flites; the caller bounds how many jobs run at once (one per slot),
 * so a free worker is always there: one is started when none is idle, and a dead one is replaced.
 */
export class SpeechWorkers {
  private readonly dir: string;
  private readonly shells: WorkerPool;
  private residents: WorkerPool | undefined;
  private residentBuild: Promise<void> | undefined;
  private residentOff: boolean;
  /** A resident flite has answered a job: one that ends later was one message's trouble, not the machine's. */
  private residentAnswered = false;

  constructor(
    cacheDir: string,
    binaries: SpeechBinaries,
    private readonly options: SpeechWorkersOptions = {},
  ) {
    this.dir = path.resolve(cacheDir);
    this.shells = new WorkerPool(
      () =>
        new SpeechWorker('/bin/sh', ['-c', SCRIPT], this.dir, {
          RH_FLITE: binaries.flite,
          RH_ESPEAK_NG: binaries['espeak-ng'],
          RH_TEXT2WAVE: binaries.festival,
          RH_SOX: binaries.sox,
        }),
    );
    this.residentOff = options.buildResidentFlite === undefined;
    // Built now, so that the first burst's messages already find it.
    this.residentPool();
  }

  async run(job: SpeechJob, timeoutMs: number): Promise<SpeechJobResult> {
    const residents = job.step === 'flite' && RESIDENT_FLITE_VOICES.has(job.voice) ? this.residentPool() : undefined;
    if (residents) {
      try {
        const status = await residents.run(job, timeoutMs);
        this.residentAnswered = true;
        if (status === 0) return status;
      } catch (error) {
        if (!(error instanceof SpeechWorkerError) || error.timedOut) throw error;
        if (!this.residentAnswered) this.turnResidentOff(`it ended before its first answer (${error.message})`);
      }
    }
    return this.shells.run(job, timeoutMs);
  }

  /** Whether flite's jobs go to the resident flite (its build, if started, is waited for). */
  async residentFliteReady(): Promise<boolean> {
    this.residentPool();
    await this.residentBuild;
    return this.residents !== undefined;
  }

  close(): void {
    this.shells.close();
    this.residents?.close();
  }

  /** The resident flites once built; jobs asked for before go to the shells. */
  private residentPool(): WorkerPool | undefined {
    if (this.residentOff || this.residents) return this.residents;
    this.residentBuild ??= this.options.buildResidentFlite!().then(
      (program) => {
        if (this.residentOff) return;
        this.residents = new WorkerPool(() => new SpeechWorker(program, [], this.dir, {}));
        this.options.logger?.info('flite runs resident: a message costs less than half the CPU of a new flite', {
          program,
        });
      },
      // Expected on a host without a C compiler (one with only the single executable): said, not warned.
      (error: Error) => this.turnResidentOff(`it could not be built: ${error.message}`, 'info'),
    );
    return undefined;
  }

  private turnResidentOff(why: string, level: 'info' | 'warn' = 'warn'): void {
    if (this.residentOff) return;
    this.residentOff = true;
    this.residents?.close();
    this.residents = undefined;
    this.options.logger?.[level](`flite runs as a new process per message: the resident flite is not used, ${why}`);
  }
}
