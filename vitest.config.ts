import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    // Hooks start real nodes (e2e); on a loaded machine that takes longer than the 10 s default.
    hookTimeout: 60_000,
    pool: 'forks',
    // Two test files at a time on CI's two cores (Vitest's default there is one): most files wait
    // on node processes, sockets and timers, so the suite takes ~11 min instead of ~16
    // (docs/decisions/test-build.md).
    maxWorkers: 2,
    // Builds dist/ once per run (incremental), so e2e and cli tests never run a stale build.
    globalSetup: ['./test/support/build-dist.ts'],
    // Every fast-check property runs from a fixed seed unless it sets its own.
    setupFiles: ['./test/support/fast-check-seed.ts'],
    reporters: ['default', new SummaryReporter()],
  },
});
