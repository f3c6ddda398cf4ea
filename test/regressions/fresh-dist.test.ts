/**
 * Issue 11, item 11: the e2e and cli tests run `dist/`, and `npm test` was the only thing that
 * built it, so a plain `npx vitest run` tested whatever build was lying around. The Vitest
 * globalSetup (test/support/build-dist.ts) now builds once per run: by the time any test
 * runs, the build is up to date with src/.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('dist/ is built before the tests run', () => {
  it('tsc -b finds nothing left to build', () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const dry = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json', '--dry', '--verbose'], {
      cwd: root,
      encoding: 'utf8',
    });
    const output = `${dry.stdout}${dry.stderr}`;
    expect(output).toContain('is up to date');
    expect(output).not.toContain('would build');
  });
});
