import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Tests share real peers (Asterisk, SIPp ports, gateways): files run one at a time.
    fileParallelism: false,
    setupFiles: ['test/helpers/setup.ts'],
  },
});
