/**
 * Issue 11, item 15: every output the README and docs/faces/*.md show is what the current code
 * prints. Each ```` ```console ```` block is run against real nodes and compared (ids and times
 * masked, `...` / `…` standing for any text; see test/support/transcripts.ts):
 *
 * - node A is `plexus start --dev --demo` (what `npm start` runs) on a free port; `3100` in a
 *   command (`localhost:3100`, `--port 3100`) means its port, and `$ npm start` compares with its first lines;
 * - node B is the README's "A second node": its `plexus.yaml` block, with A's real port;
 *   `3101` in a command means B's port;
 * - `plexus` and `npx plexus` run this checkout's bin/plexus.js, with PLEXUS_NODE set to A;
 * - each page runs in a fresh directory holding links to `test/`, `examples/` and
 *   `node_modules/` (as in the repository), so key files
 *   and the like that the examples write land in a temporary directory.
 *
 * Blocks fenced as ```` ```sh ```` are not run (they start nodes, or show a session).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanup, startNodeProcess, tempDir, type NodeProcess } from '../e2e/harness.js';
import { matchesTranscript, transcripts, type Transcript } from '../support/transcripts.js';

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs', 'faces'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/faces/${f}`),
];

/** The `plexus.yaml` of the README's "A second node" section. */
export function secondNodeConfig(readme: string): string {
  const section = readme.slice(readme.indexOf('## A second node'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  if (block?.[1] === undefined) throw new Error('README: no ```yaml block under "## A second node"');
  return block[1];
}

let a: NodeProcess;
let b: NodeProcess;
let bin: string;

const portOf = (node: NodeProcess): string => new URL(node.url).port;

beforeAll(async () => {
  a = await startNodeProcess({
    dataDir: join(tempDir(), '.plexus'),
    flags: ['--dev', '--demo'],
    timeoutMs: 60_000,
  });
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  b = await startNodeProcess({
    config: secondNodeConfig(readme).replaceAll('3100', portOf(a)),
    flags: ['--dev'],
    timeoutMs: 60_000,
  });
  bin = tempDir('plexus-readme-bin-');
  writeFileSync(join(bin, 'plexus'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'plexus'), 0o755);
}, 130_000);

afterAll(async () => {
  await cleanup();
});

/** Runs one command as a user would type it, in `cwd`; stdout and stderr together. */
function run(command: string, cwd: string): string {
  const local = command
    .replace(/\bnpx plexus\b/g, 'plexus')
    .replace(/(localhost|127\.0\.0\.1):3100\b/g, `127.0.0.1:${portOf(a)}`)
    .replace(/(localhost|127\.0\.0\.1):3101\b/g, `127.0.0.1:${portOf(b)}`)
    .replace(/--port 3100\b/g, `--port ${portOf(a)}`);
  const result = spawnSync('bash', ['-c', `exec 2>&1\n${local}`], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      ...process.env,
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
      PLEXUS_NODE: a.url,
      PLEXUS_TOKEN: '',
    },
  });
  return (result.stdout + result.stderr)
    .replaceAll(`127.0.0.1:${portOf(a)}`, '127.0.0.1:3100')
    .replaceAll(`127.0.0.1:${portOf(b)}`, '127.0.0.1:3101');
}

function pageDir(): string {
  const dir = tempDir('plexus-readme-page-');
  symlinkSync(join(ROOT, 'test'), join(dir, 'test'));
  symlinkSync(join(ROOT, 'examples'), join(dir, 'examples'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  mkdirSync(join(dir, '.plexus'));
  return dir;
}

describe.each(PAGES)('the transcripts of %s', (page) => {
  // "Your first agent" starts its own node with a user module: test/regressions/first-agent.test.ts runs it.
  const blocks: Transcript[] = transcripts(page, readFileSync(join(ROOT, page), 'utf8')).filter(
    (block) => block.heading !== 'Your first agent',
  );

  it('print what the page shows', { timeout: 300_000 }, () => {
    const cwd = pageDir();
    for (const block of blocks) {
      for (const step of block.steps) {
        const actual =
          step.command === 'npm start'
            ? a.stdout().replaceAll(`127.0.0.1:${portOf(a)}`, '127.0.0.1:3100')
            : run(step.command, cwd);
        const where = `${page}:${String(step.line)} (${block.heading}): $ ${step.command}`;
        expect(
          matchesTranscript(step.expected, actual),
          `${where}\n--- the page shows:\n${step.expected.join('\n')}\n--- it printed:\n${actual}`,
        ).toBe(true);
      }
    }
  });
});

describe('the transcript checker', () => {
  it('masks ids and times, and treats ... and … as any text', () => {
    expect(
      matchesTranscript(
        ['{"job_id":"f0483aa3-789e-44dc-8a8d-ec4a91c53373","at":"2026-11-22T05:56:09.568Z",...}'],
        '{"job_id":"01a21895-41b4-7000-bc9f-8ddd1e56ec2b","at":"2026-11-26T16:01:15.002Z","x":1}\n',
      ),
    ).toBe(true);
    expect(
      matchesTranscript(['did:key:z6Mk…'], 'did:key:z6MkuS58YGXmGsrsgBi4CccCa1H4yQr2mrC23ofVcbq1dSpN'),
    ).toBe(true);
    expect(matchesTranscript(['{"value":98}'], '{"value":99}')).toBe(false);
    expect(matchesTranscript(['valid emergence'], 'valid emergence\nand more')).toBe(false);
  });

  it('reads commands, continuations and outputs from ```console blocks only', () => {
    const md = [
      '## A',
      '```sh',
      '$ not run',
      '```',
      '```console',
      '$ echo a \\',
      '  b',
      'a b',
      '$ true',
      '```',
    ].join('\n');
    const [block, ...rest] = transcripts('x.md', md);
    expect(rest).toEqual([]);
    expect(block?.heading).toBe('A');
    expect(block?.steps).toEqual([
      { command: 'echo a \\\n  b', expected: ['a b'], line: 6 },
      { command: 'true', expected: [], line: 9 },
    ]);
  });
});
