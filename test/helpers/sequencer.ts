// The order the test files start in: the longest first, whatever their project, so that a long file
// never starts last and runs on alone at the end (vitest's own order runs one project's files after
// another's: test/unit/dialer.test.ts, 70 s of timers, started last and made the run's last minute).
// Longest by the last run's duration where this machine has one, else by size (a fresh clone, as in CI).
// The files that must run alone are grouped after the others by vitest itself, whatever this order.
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const key = (file: TestSpecification) => `${file.project.name}:${path.relative(config.root, file.moduleId)}`;
    const lastDuration = (file: TestSpecification) => cache.getFileTestResults(key(file))?.duration;
    const size = (file: TestSpecification) => cache.getFileStats(key(file))?.size ?? 0;
    return [...files].sort((a, b) => {
      const [da, db] = [lastDuration(a), lastDuration(b)];
      return da !== undefined && db !== undefined ? db - da : size(b) - size(a);
    });
  }
}
