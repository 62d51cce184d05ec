// The order the test files start in: the longest first, whatever their project, so that a long file
// never starts last and runs on alone at the end (vitest's own order runs one project's files after
// another's: test/unit/dialer.test.ts, 70 s of timers, started last and made the run's last minute).
// Longest by the last run's duration on this machine where it has one, else by the duration in the
// committed test/durations.json (a fresh clone, as in CI: `npm run test:durations` refreshes it); a
// file in neither is new and starts first, the larger first. The files that must run alone are
// grouped after the others by vitest itself, whatever this order.
import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

function committedDurations(root: string): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, 'test', 'durations.json'), 'utf8'));
  } catch {
    return {};
  }
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const committed = committedDurations(config.root);
    const relative = (file: TestSpecification) => path.relative(config.root, file.moduleId);
    const key = (file: TestSpecification) => `${file.project.name}:${relative(file)}`;
    const expectedMs = (file: TestSpecification) => {
      const last = cache.getFileTestResults(key(file))?.duration;
      if (last !== undefined) return last;
      const seconds = committed[relative(file)];
      return seconds === undefined ? Number.POSITIVE_INFINITY : seconds * 1000;
    };
    const size = (file: TestSpecification) => cache.getFileStats(key(file))?.size ?? 0;
    return [...files].sort((a, b) => expectedMs(b) - expectedMs(a) || size(b) - size(a));
  }
}
