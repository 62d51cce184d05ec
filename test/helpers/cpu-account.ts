// Charges the CPU a test file spends (its worker and every process it starts, daemons included) to a
// cgroup of its own, so that `npm test` can list the files that cost the most CPU as well as the
// slowest (scripts/test-cpu.mjs). On only when scripts/test.sh made the cgroup root (root, cgroup v1
// cpuacct, as on the CI machine): elsewhere it does nothing.
import fs from 'node:fs';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '../..');

/** The cgroup's name for a test file: its path in the repository with "/" as "~". */
export function cgroupName(file: string): string {
  return path.relative(REPO_ROOT, file).replaceAll('/', '~');
}

export function chargeCpuTo(file: string, root = process.env.RINGHOOK_TEST_CPU_CGROUP): void {
  if (!root) return;
  const dir = path.join(root, cgroupName(file));
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(process.pid));
  } catch (error) {
    // The list is a measurement, not a test: a file that cannot be charged is left out of it, said once.
    console.warn(`ringhook: CPU of ${file} not measured: ${(error as Error).message}`);
  }
}
