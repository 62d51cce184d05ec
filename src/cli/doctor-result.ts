// One check of `ringhook doctor`: passed, failed with the fix, or skipped with why.
import type { Config } from '../config/index.js';

export interface CheckResult {
  name: string;
  ok: boolean | 'skipped';
  detail: string;
  fix?: string;
}

export type Check = (config: Config) => Promise<CheckResult>;

export const pass = (name: string, detail: string): CheckResult => ({ name, ok: true, detail });
export const fail = (name: string, detail: string, fix: string): CheckResult => ({ name, ok: false, detail, fix });
export const skip = (name: string, detail: string): CheckResult => ({ name, ok: 'skipped', detail });
