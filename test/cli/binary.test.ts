import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The real `plexus` binary in a child process: streams, exit codes, stdin. Needs dist/
// (the Vitest globalSetup, test/support/build-dist.ts, builds it first).
const root = resolve(fileURLToPath(import.meta.url), '../../..');
const bin = join(root, 'bin', 'plexus.js');
const fixtures = resolve(root, 'test/fixtures/esrp-v1');

function plexus(args: string[], input = ''): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { input, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the plexus binary', () => {
  it('is built', () => {
    expect(existsSync(join(root, 'dist', 'cli', 'main.js')), 'run `npm run build` first').toBe(true);
  });

  it('hashes a file and exits 0', () => {
    const r = plexus(['hash', '--profile', 'esrp', join(fixtures, 'requests', 'simple_tts.json')]);
    expect(r).toEqual({
      status: 0,
      stdout: '91172c2b5d97f75d0256f685d5396fbb6556c6312f0ca6ad32e3f9cadee19c63\n',
      stderr: '',
    });
  });

  it('reads stdin and reports a user error on stderr with exit 1 and no stack trace', () => {
    const r = plexus(['canonicalize'], '{"a":');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^plexus: invalid JSON at line 1, column 6/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints validation problems on stdout and exits 1', () => {
    const r = plexus(['validate', '--format', 'emergence'], '{"id":"x"}');
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^invalid emergence/);
  });
});
