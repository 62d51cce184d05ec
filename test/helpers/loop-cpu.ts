// The most CPU the event loop's thread used within one gap between two ticks of a 5 ms timer (a gap
// over 20 ms): work that holds the event loop shows as CPU, a process only waiting for a core (the
// machine's load) does not. The held-alert tests read it beside monitorEventLoopDelay's figures.
// The thread's own time on a CPU (Linux's /proc/thread-self/schedstat), not the process's: V8's
// compiler and collector helpers run beside the loop without holding it, and a gap made long by
// the machine's load gathered their CPU too (107.9 ms in one gap at load average 11, #53).
//
// RINGHOOK_TEST_LOOP_PROFILE=<folder> (a test-only switch, docs/development.md) also profiles the
// window with V8's sampler (every 100 µs) and writes, per window, `<n>.cpuprofile` and `<n>.gaps.json`
// (each gap over 20 ms: start and end on the profile's clock, its CPU): `node scripts/loop-gaps.mjs
// <folder>` then names what ran in each long gap.
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

interface Gap {
  startUs: number;
  endUs: number;
  cpuMs: number;
}

export function heldLoopCpu(): { stop(): number } {
  const profileDir = process.env.RINGHOOK_TEST_LOOP_PROFILE;
  const session = profileDir ? startProfile() : undefined;
  const gaps: Gap[] = [];
  let heldCpuMs = 0;
  let last = performance.now();
  let lastCpu = loopThreadCpuMs();
  const probe = setInterval(() => {
    const now = performance.now();
    const cpu = loopThreadCpuMs();
    if (now - last > 20) {
      const cpuMs = cpu - lastCpu;
      heldCpuMs = Math.max(heldCpuMs, Math.min(now - last, cpuMs));
      // performance.now() and V8's profile share the monotonic clock, the profile in µs since boot.
      if (session) gaps.push({ startUs: toMonotonicUs(last), endUs: toMonotonicUs(now), cpuMs });
    }
    last = now;
    lastCpu = cpu;
  }, 5);
  return {
    stop() {
      clearInterval(probe);
      if (session && profileDir) stopProfile(session, profileDir, gaps);
      return heldCpuMs;
    },
  };
}

/** This thread's time on a CPU so far, ms; where the kernel does not tell it, the whole process's. */
function loopThreadCpuMs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

const monotonicOffsetUs = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
function toMonotonicUs(performanceMs: number): number {
  return monotonicOffsetUs + performanceMs * 1000;
}

function startProfile(): Session {
  const session = new Session();
  session.connect();
  // In this thread the inspector answers within post(), before it returns.
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 100 });
  session.post('Profiler.start');
  return session;
}

function stopProfile(session: Session, dir: string, gaps: Gap[]): void {
  session.post('Profiler.stop', (error, result) => {
    if (error) throw error;
    const name = `${Date.now()}`;
    writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(result.profile));
    writeFileSync(path.join(dir, `${name}.gaps.json`), JSON.stringify(gaps));
  });
  session.disconnect();
}
