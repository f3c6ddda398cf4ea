// Issue 11 item 12: `npm pack` makes a tarball that installs into an empty project, where
// `import { agent, verb } from 'plexus/sdk'` (and the root `plexus` import) work and
// `npx plexus start --agent ./a.js` serves the agent over HTTP. (On the original main,
// `plexus start --agent` does not exist.)
//
// The install is offline and pinned to this repository's lockfile; better-sqlite3's native
// build is reused from this checkout instead of compiled again: docs/decisions/packaging.md.
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, built, cleanup, esrpRequest, post, resultOf, tempDir } from '../e2e/harness.js';
import { installLockfile } from '../support/install-lockfile.js';

/** Runs npm (no network: every call is offline) and fails the test on a non-zero exit. */
function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
  const run = spawnSync('npm', [...args, '--offline', '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    timeout: 110_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  expect(run.status, `npm ${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
  return run;
}

const AGENT = `import { agent, verb } from 'plexus/sdk';
import * as plexus from 'plexus';

const hello = verb(
  'packed.hello',
  { input: { type: 'object' }, output: true },
  ({ name = 'world' }) => ({ text: \`hello, \${name}\`, root: typeof plexus.PlexusError }),
);
export default agent('packed', [hello]);
`;

let work: string;
/** How long each step took (printed, never asserted: docs/decisions/packaging.md has figures). */
const took: string[] = [];
let last = 0;
function step(name: string): void {
  const now = performance.now();
  if (last !== 0) took.push(`${name} ${((now - last) / 1000).toFixed(1)} s`);
  last = now;
}
beforeAll(() => {
  expect(built(), 'run `npm run build` first').toBe(true);
  work = tempDir('plexus-pack-');
});
afterAll(async () => {
  console.log(`npm-pack regression: ${took.join(', ')}`);
  await cleanup(); // the installed project is large: removing it takes a while on a busy machine
}, 120_000);

describe('npm pack, installed into an empty project', () => {
  it(
    'serves an agent written against plexus/sdk with npx plexus start --agent',
    { timeout: 180_000 },
    async () => {
      step('');
      // 1. the tarball (prepack builds dist/)
      const packed = npm(['pack', '--pack-destination', work, '--json'], ROOT);
      const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [
        { filename: string; files: { path: string }[] },
      ];
      const files = info.files.map((f) => f.path);
      expect(files).toEqual(
        expect.arrayContaining(['bin/plexus.js', 'dist/sdk/index.js', 'dist/index.js', 'package.json']),
      );
      expect(
        files.filter((f) => !f.startsWith('dist/') && !f.startsWith('bin/') && !f.startsWith('ui/')).sort(),
      ).toEqual(['README.md', 'package.json']);
      // the dashboard's hand-written files (served at /ui/): no build step, no CDN
      expect(files).toEqual(expect.arrayContaining(['ui/index.html', 'ui/app.js', 'ui/app.css']));
      const tarball = join(work, info.filename);
      step('npm pack');

      // 2. an empty project that depends on it, installed offline from the npm cache
      const project = join(work, 'project');
      mkdirSync(project);
      const manifest = { name: 'first-project', version: '1.0.0', private: true, type: 'module' };
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ ...manifest, dependencies: { plexus: `file:${tarball}` } }, null, 2),
      );
      writeFileSync(
        join(project, 'package-lock.json'),
        JSON.stringify(installLockfile(ROOT, tarball, manifest), null, 2),
      );
      npm(['ci', '--ignore-scripts'], project);
      step('npm ci');
      const installed = join(project, 'node_modules', 'plexus');
      expect(readdirSync(installed).sort()).toEqual(['README.md', 'bin', 'dist', 'package.json', 'ui']);

      // the published types: the root is the small API, and the @internal re-exports of the
      // layers are stripped from their subpaths' types (docs/decisions/api.md API-3)
      const types = (path: string): string => readFileSync(join(installed, 'dist', path), 'utf8');
      expect(types('index.d.ts')).toMatch(/\bisPlexusError\b/);
      expect(types('runtime/index.d.ts')).toMatch(/\bcreateRuntime\b/);
      for (const internal of ['accept', 'createJobRunner', 'takeHeld', 'runStep']) {
        expect(types('runtime/index.d.ts')).not.toMatch(new RegExp(`\\b${internal}\\b`));
      }
      expect(types('store/index.d.ts')).not.toMatch(/\bsealEvent\b/);

      // better-sqlite3's install script was skipped: reuse this checkout's build of the same version
      const sqlite = (root: string): string => join(root, 'node_modules', 'better-sqlite3');
      const version = (dir: string): unknown =>
        (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: unknown }).version;
      expect(version(sqlite(project))).toBe(version(sqlite(ROOT)));
      mkdirSync(join(sqlite(project), 'build', 'Release'), { recursive: true });
      copyFileSync(
        join(sqlite(ROOT), 'build', 'Release', 'better_sqlite3.node'),
        join(sqlite(project), 'build', 'Release', 'better_sqlite3.node'),
      );

      // 3. the user's agent, served by npx plexus
      writeFileSync(join(project, 'a.js'), AGENT);
      const child = spawn(
        'npx',
        ['--offline', 'plexus', 'start', '--agent', './a.js', '--port', '0', '--dev', '--data', './.plexus'],
        { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
      );
      let out = '';
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
      // 'close': npx and the node it runs (which shares its pipes) have both ended
      const exited = new Promise<number | string>((done) => {
        child.once('close', (code, signal) => {
          done(code ?? signal ?? 'unknown');
        });
      });
      try {
        const url = await new Promise<string>((done, fail) => {
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString('utf8');
            const m = /listening on (\S+)/.exec(out);
            if (m?.[1] !== undefined) done(m[1]);
          });
          void exited.then((code) => {
            fail(new Error(`npx plexus start exited (${String(code)})\n${out}\n${err}`));
          });
        });
        step('npx plexus start');
        const answer = await post(`${url}/v1/execute`, esrpRequest('packed.hello', { name: 'pack' }));
        expect(answer.status).toBe(200);
        expect(resultOf(answer.body)).toEqual({ text: 'hello, pack', root: 'function' });
        // the installed package serves its dashboard
        const page = await fetch(`${url}/ui/app.js`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('hashchange');
      } finally {
        // npx and the node it runs: their own process group, started here
        if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
      }
      // npm may end by the signal itself; the node drains and says so
      expect([0, 'SIGTERM']).toContain(await exited);
      step('call and stop');
      expect(err).toContain('plexus: SIGTERM: stopping');
      expect(err).toContain('plexus: stopped');
    },
  );
});
