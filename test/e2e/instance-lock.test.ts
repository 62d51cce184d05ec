// One serve per data dir, and a serve that died by any means never blocks the next start: real
// `ringhook serve` processes (telephony off), killed with SIGKILL, inside their own PID namespace
// as a container runs them, left as zombies, and beside an unrelated process that holds the old pid.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/sqlite/connect.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { request } from '../helpers/https-client.js';
import { freeTcpPort } from '../helpers/ports.js';
import { makeDataDir } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

const BIN = path.join(REPO_ROOT, 'bin', 'ringhook.js');
const children: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function launch(command: string, args: string[], env: Record<string, string>): Started {
  let output = '';
  // In a process group of its own (led by the pid started here), so that the cleanup reaches what
  // it started in turn: the serve that bash puts in the background, the serve inside a PID namespace.
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function serveEnv(dataDir: string): Promise<Record<string, string>> {
  return {
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(await freeTcpPort()),
    RINGHOOK_TELEPHONY: 'off',
  };
}

async function listening(s: Started): Promise<void> {
  await waitFor(
    'serve to listen',
    () => {
      if (s.output().includes('ringhook is listening')) return true;
      if (s.child.exitCode !== null) throw new Error(`serve exited ${s.child.exitCode}:\n${s.output()}`);
      return undefined;
    },
    30_000,
  );
}

async function healthy(env: Record<string, string>): Promise<number> {
  const ca = fs.readFileSync(path.join(env.RINGHOOK_DATA_DIR!, 'tls', 'self-signed-cert.pem'), 'utf8');
  return (await request(`https://127.0.0.1:${env.RINGHOOK_PORT}/healthz`, { method: 'GET', ca })).status;
}

/** `ringhook serve` as pid 1 of a new PID namespace, as a container's entry point. */
function serveInPidNamespace(env: Record<string, string>): Started {
  return launch('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', process.execPath, BIN, 'serve'], env);
}

/** The pid, in this namespace, of the serve started by `unshare` (its only child). */
function childPid(parent: number): number {
  const children = fs.readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/).map(Number);
  expect(children).toHaveLength(1);
  return children[0]!;
}

function processState(pid: number): string | null {
  try {
    return fs
      .readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ')[0]!;
  } catch {
    return null;
  }
}

// Runs whether the test passed or not: the process group of each pid started here is killed, its
// leader gone or not (a test that failed before it killed bash's serve left that serve running,
// reparented to init, when only bash was killed).
afterEach(async () => {
  for (const child of children.splice(0)) {
    const gone =
      child.exitCode === null && child.signalCode === null ? new Promise((r) => child.once('exit', r)) : undefined;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // no process left in the group
    }
    await gone;
  }
});

describe('the data dir lock', () => {
  it('a serve killed with SIGKILL in its own PID namespace starts again there (pid 1 both times)', async () => {
    const env = await serveEnv(makeDataDir('rh-lock-'));
    const first = serveInPidNamespace(env);
    await listening(first);
    expect(fs.readFileSync(path.join(env.RINGHOOK_DATA_DIR!, 'serve.pid'), 'utf8').split('\n')[0]).toBe('1');
    process.kill(childPid(first.child.pid!), 'SIGKILL');
    await first.exited;

    const second = serveInPidNamespace(env);
    await listening(second);
    expect(await healthy(env)).toBe(200);
    expect(second.output()).not.toMatch(/another ringhook serve/);
  }, 60_000);

  it('a serve killed while its parent never reaps it (a zombie) does not hold the data dir', async () => {
    const env = await serveEnv(makeDataDir('rh-lock-'));
    // bash starts serve in the background, then becomes `sleep`, which never waits for children.
    const parent = launch('bash', ['-c', `"${process.execPath}" "${BIN}" serve & exec sleep 120`], env);
    await listening(parent);
    const servePid = childPid(parent.child.pid!);
    process.kill(servePid, 'SIGKILL');
    await waitFor('serve to be a zombie', () => (processState(servePid) === 'Z' ? true : undefined), 5_000);

    const next = launch(process.execPath, [BIN, 'serve'], env);
    await listening(next);
    expect(processState(servePid)).toBe('Z');
    expect(await healthy(env)).toBe(200);
  }, 60_000);

  it('a serve.pid naming an unrelated live process does not block the start', async () => {
    const env = await serveEnv(makeDataDir('rh-lock-'));
    const unrelated = launch('sleep', ['120'], {});
    fs.writeFileSync(path.join(env.RINGHOOK_DATA_DIR!, 'serve.pid'), `${unrelated.child.pid}\n`);
    const s = launch(process.execPath, [BIN, 'serve'], env);
    await listening(s);
    expect(fs.readFileSync(path.join(env.RINGHOOK_DATA_DIR!, 'serve.pid'), 'utf8')).toBe(
      `${s.child.pid}\n0.1.0\n${SCHEMA_VERSION}\n`,
    );
  }, 60_000);

  it('a second live serve is refused with the holder named, and the CLI works beside the first', async () => {
    const env = await serveEnv(makeDataDir('rh-lock-'));
    const first = launch(process.execPath, [BIN, 'serve'], env);
    await listening(first);

    const second = launch(process.execPath, [BIN, 'serve'], { ...env, RINGHOOK_PORT: String(await freeTcpPort()) });
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(
      `another ringhook serve (pid ${first.child.pid}, ringhook 0.1.0, schema ${SCHEMA_VERSION}) is using the data dir ${env.RINGHOOK_DATA_DIR}`,
    );
    expect(second.output()).not.toMatch(/\n\s+at /); // one line, no stack trace

    const created = runCli(['account', 'create', '--phone', '+14155550123', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(runCli(['account', 'show', created.json.user_id, '--json'], env).code).toBe(0);
    expect(await healthy(env)).toBe(200);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(fs.existsSync(path.join(env.RINGHOOK_DATA_DIR!, 'serve.pid'))).toBe(false);
    const third = launch(process.execPath, [BIN, 'serve'], env);
    await listening(third);
  }, 60_000);
});
