// For the crash tests: processes seen from /proc (a serve's watchdog, a container's serve), the
// managed Asterisk of a data dir, and when a SIPp phone got its BYEs.
import fs from 'node:fs';
import path from 'node:path';
import type { SippPhone } from './sipp.js';

function readProc(pid: number, file: string): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Live processes (not zombies) with their parent and command line. */
export function processes(): Array<{ pid: number; ppid: number; cmdline: string }> {
  const list: Array<{ pid: number; ppid: number; cmdline: string }> = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(Number(entry), 'stat');
    const cmdline = readProc(Number(entry), 'cmdline');
    if (!stat || cmdline === undefined) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') continue;
    list.push({ pid: Number(entry), ppid: Number(fields[1]), cmdline: cmdline.replaceAll('\0', ' ') });
  }
  return list;
}

export function alive(pid: number): boolean {
  const stat = readProc(pid, 'stat');
  return stat !== undefined && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** Every process below `pid`. */
export function descendants(pid: number): Array<{ pid: number; ppid: number; cmdline: string }> {
  const all = processes();
  const found: typeof all = [];
  const parents = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

/** The managed Asterisk's pid (from its pid file) if it runs. */
export function asteriskPid(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'asterisk', 'run', 'asterisk.pid'), 'utf8').trim());
    return alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The watchdog serve started beside its Asterisk. */
export function watchdogOf(servePid: number): number | undefined {
  return descendants(servePid).find((p) => p.cmdline.includes('ringhook-asterisk-watchdog'))?.pid;
}

/** Follows a SIPp phone's message log: when each BYE request arrived (ms since the epoch). */
export function byeWatch(phone: SippPhone): {
  times: number[];
  stop(): void;
  next(after: number, timeoutMs: number): Promise<number | undefined>;
} {
  const times: number[] = [];
  const timer = setInterval(async () => {
    const count = ((await phone.messagesSoFar()).match(/^BYE sip:/gm) ?? []).length;
    while (times.length < count) times.push(Date.now());
  }, 20);
  return {
    times,
    stop: () => clearInterval(timer),
    async next(after, timeoutMs) {
      const end = Date.now() + timeoutMs;
      while (Date.now() < end) {
        const t = times.find((x) => x >= after);
        if (t !== undefined) return t;
        await new Promise((r) => setTimeout(r, 20));
      }
      return times.find((x) => x >= after);
    },
  };
}

/** When INVITE requests arrived, in the same way. */
export async function inviteCount(phone: SippPhone): Promise<number> {
  return ((await phone.messagesSoFar()).match(/^INVITE sip:/gm) ?? []).length;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
