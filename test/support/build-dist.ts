/**
 * Vitest `globalSetup`: builds `dist/` once before any test file runs, so the tests that spawn
 * `bin/plexus.js` or import `dist/` (e2e, cli, crash) never test a stale build. The build is
 * `tsc -b tsconfig.build.json`, incremental: when nothing changed it only checks the build info.
 * `PLEXUS_TEST_SKIP_BUILD=1` skips it (for a quick run of unit tests only; see
 * docs/decisions/test-build.md).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs the build; throws (failing the run) with tsc's own output when it fails. */
export default function buildDist(): void {
  if (process.env['PLEXUS_TEST_SKIP_BUILD'] === '1') return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    const output = `${result.stdout}${result.stderr}`.trim();
    throw new Error(
      `the build before the tests failed (tsc -b tsconfig.build.json, exit ${String(result.status)}); ` +
        `the e2e and cli tests run dist/ and must not run a stale one:\n${output || String(result.error)}`,
    );
  }
}
