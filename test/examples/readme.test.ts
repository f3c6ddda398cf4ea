/**
 * Issue 11, item 15: every output the README and docs/faces/*.md show is what the current code
 * prints. Each ```` ```console ```` block is run against real nodes and compared (ids and times
 * masked, `...` / `…` standing for any text; see test/support/transcripts.ts):
 *
 * - node A is `plexus start --dev --demo` (what `npm start` runs) on a free port; `3100` in a
 *   command (`localhost:3100`, `--port 3100`) means its port, and `$ npm start` compares with its first lines;
 * - node B is the README's "A second node": its `plexus.yaml` block, with A's real port;
 *   `3101` in a command means B's port;
 * - `$ plexus start … --port N …` whose output ends with `press Ctrl-C to stop` starts a node
 *   that keeps running (on a free port; `N` in the page's later commands means that port) until
 *   the page ends, and compares its first lines;
 * - a block fenced ```` ```console stopped ```` runs while node A is stopped (SIGTERM, as Ctrl-C
 *   does); A is started again afterwards, on the same port, as a fresh `npm start` (a new data
 *   directory: later pages see what a fresh node shows);
 * - `plexus` and `npx plexus` run this checkout's bin/plexus.js, with PLEXUS_NODE set to A;
 * - each page runs in a fresh directory holding links to `test/`, `examples/` and
 *   `node_modules/` (as in the repository), and `.plexus/` is A's data directory (as after
 *   `npm start`), so key files and the like that the examples write land in temporary directories;
 * - the commands of a page share their shell variables, as in one terminal (`JOB=…`, then `$JOB`).
 *
 * Pages run in order (README.md, then docs/faces/*.md by name) against the same nodes.
 * A block of commands that is not a ```` ```console ```` block fails the last test: in
 * docs/faces/*.md every shell block is a transcript; in the README a ```` ```sh ```` block holds
 * commands only (no output, no prompts, no comment lines).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanup, exitOf, startNodeProcess, tempDir, type NodeProcess } from '../e2e/harness.js';
import {
  matchesTranscript,
  transcripts,
  uncheckedBlocks,
  type Transcript,
  type TranscriptStep,
} from '../support/transcripts.js';

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

const portOf = (node: { readonly url: string }): string => new URL(node.url).port;
const A_FLAGS = ['--dev', '--demo'];

beforeAll(async () => {
  a = await startNodeProcess({ dataDir: join(tempDir(), '.plexus'), flags: A_FLAGS, timeoutMs: 60_000 });
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

/** Where one page runs: its directory, its shell variables, and the ports its commands name. */
interface Page {
  readonly cwd: string;
  /** The file the page's shell variables are kept in between commands. */
  readonly state: string;
  /** The port a page names (`3100`) to the real one. */
  readonly ports: Map<string, string>;
  /** Nodes the page started (`$ plexus start …`), stopped when it ends. */
  readonly nodes: { readonly stop: () => Promise<void> }[];
}

function newPage(): Page {
  const cwd = tempDir('plexus-readme-page-');
  symlinkSync(join(ROOT, 'test'), join(cwd, 'test'));
  symlinkSync(join(ROOT, 'examples'), join(cwd, 'examples'));
  symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'));
  symlinkSync(a.dataDir, join(cwd, '.plexus'));
  const ports = new Map([
    ['3100', portOf(a)],
    ['3101', portOf(b)],
  ]);
  return { cwd, state: join(tempDir('plexus-readme-shell-'), 'variables.sh'), ports, nodes: [] };
}

/** The command with the page's ports put in for the real ones. */
function localCommand(command: string, page: Page): string {
  let local = command.replace(/\bnpx plexus\b/g, 'plexus');
  for (const [shown, real] of page.ports) {
    local = local
      .replace(new RegExp(`(localhost|127\\.0\\.0\\.1):${shown}\\b`, 'g'), `127.0.0.1:${real}`)
      .replace(new RegExp(`--port ${shown}\\b`, 'g'), `--port ${real}`);
  }
  return local;
}

/** Output with the real ports put back to the ones the page shows. */
function shownOutput(output: string, page: Page): string {
  let shown = output;
  for (const [name, real] of page.ports) shown = shown.replaceAll(`127.0.0.1:${real}`, `127.0.0.1:${name}`);
  return shown;
}

function environment(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    PLEXUS_NODE: a.url,
    PLEXUS_TOKEN: '',
  };
}

/**
 * Runs one command as a user would type it, in the page's directory; stdout and stderr together.
 * The shell variables of earlier commands are set (and exported, with `set -a`), and those it sets
 * are kept for the next ones.
 */
function run(command: string, page: Page): string {
  const script = [
    'exec 2>&1',
    'set -a',
    `[ -f '${page.state}' ] && . '${page.state}'`,
    `trap "export -p | grep -Ev '^declare -x (OLDPWD|PWD|SHLVL|_)=' > '${page.state}'" EXIT`,
    localCommand(command, page),
  ].join('\n');
  const result = spawnSync('bash', ['-c', script], {
    cwd: page.cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: environment(),
  });
  return shownOutput(result.stdout + result.stderr, page);
}

/** True for `$ plexus start …` that shows a node starting and staying up. */
function startsNode(step: TranscriptStep): boolean {
  return (
    /^(npx )?plexus start\b/.test(step.command) &&
    step.expected
      .filter((l) => l.trim() !== '')
      .at(-1)
      ?.trim() === 'press Ctrl-C to stop'
  );
}

/**
 * Starts the node of a `$ plexus start … --port N …` step on a free port, waits for it to listen
 * (or exit), and from then on maps `N` to its port. Resolves with what it printed so far.
 */
async function startPageNode(step: TranscriptStep, page: Page): Promise<string> {
  const shownPort = /--port (\d+)\b/.exec(step.command)?.[1];
  if (shownPort === undefined || page.ports.has(shownPort)) {
    throw new Error(`${step.command}: a node a page starts needs a --port of its own`);
  }
  const command = localCommand(step.command.replace(/--port \d+\b/, '--port 0'), page);
  const child = spawn('bash', ['-c', `exec ${command}`], {
    cwd: page.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: environment(),
  });
  const exited = new Promise<void>((done) => {
    child.once('exit', () => {
      done();
    });
  });
  page.nodes.push({
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  });
  let out = '';
  const ready = new Promise<void>((done) => {
    const check = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      if (out.includes('press Ctrl-C to stop')) done();
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((done) => (timer = setTimeout(done, 60_000)));
  await Promise.race([ready, exited, timeout]);
  clearTimeout(timer);
  const url = /listening on (\S+)/.exec(out)?.[1];
  if (url !== undefined) page.ports.set(shownPort, portOf({ url }));
  return shownOutput(bannerOf(out), page);
}

/**
 * What a starting node printed up to its banner's last line: the log lines it writes after it
 * (docs/observability.md, Logs) are not part of the pages' transcripts.
 */
function bannerOf(out: string): string {
  const end = out.indexOf('press Ctrl-C to stop');
  return end < 0 ? out : out.slice(0, end + 'press Ctrl-C to stop'.length) + '\n';
}

/** Stops node A as Ctrl-C does (SIGTERM, waiting for it to exit). */
async function stopA(): Promise<void> {
  a.child.kill('SIGTERM');
  await exitOf(a, 30_000);
}

/**
 * Starts node A again, on the same port, as a fresh `npm start` (a new data directory: the old
 * one's restart would show re-registered agents, `"revision":2`, to later pages).
 */
async function restartA(): Promise<void> {
  const port = Number(portOf(a));
  a = await startNodeProcess({
    dataDir: join(tempDir(), '.plexus'),
    port,
    flags: A_FLAGS,
    timeoutMs: 60_000,
  });
}

describe.each(PAGES)('the transcripts of %s', (page) => {
  // "Your first agent" starts its own node with a user module: test/regressions/first-agent.test.ts runs it.
  const blocks: Transcript[] = transcripts(page, readFileSync(join(ROOT, page), 'utf8')).filter(
    (block) => block.heading !== 'Your first agent',
  );

  it('print what the page shows', { timeout: 300_000 }, async () => {
    const here = newPage();
    try {
      for (const block of blocks) {
        const stopped = block.options.includes('stopped');
        if (stopped) await stopA();
        try {
          for (const step of block.steps) {
            const actual =
              step.command === 'npm start'
                ? shownOutput(bannerOf(a.stdout()), here)
                : startsNode(step)
                  ? await startPageNode(step, here)
                  : run(step.command, here);
            const where = `${page}:${String(step.line)} (${block.heading}): $ ${step.command}`;
            expect(
              matchesTranscript(step.expected, actual),
              `${where}\n--- the page shows:\n${step.expected.join('\n')}\n--- it printed:\n${actual}`,
            ).toBe(true);
          }
        } finally {
          if (stopped) await restartA();
        }
      }
    } finally {
      await Promise.all(here.nodes.map((node) => node.stop()));
    }
  });
});

describe('the pages', () => {
  it.each(PAGES)('%s shows commands with output only in checked console blocks', (page) => {
    expect(uncheckedBlocks(page, readFileSync(join(ROOT, page), 'utf8'))).toEqual([]);
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
    expect(block?.options).toEqual([]);
    expect(block?.steps).toEqual([
      { command: 'echo a \\\n  b', expected: ['a b'], line: 6 },
      { command: 'true', expected: [], line: 9 },
    ]);
  });

  it('reads a here-document as part of its command, and the options of a block', () => {
    const md = ['```console stopped', '$ cat <<EOF', '$ x', 'EOF', '$ x', '$ cat <<<EOF', 'EOF', '```'].join(
      '\n',
    );
    const [block] = transcripts('x.md', md);
    expect(block?.options).toEqual(['stopped']);
    expect(block?.steps).toEqual([
      { command: 'cat <<EOF\n$ x\nEOF', expected: [], line: 2 },
      { command: 'x', expected: [], line: 5 },
      { command: 'cat <<<EOF', expected: ['EOF'], line: 6 },
    ]);
  });

  it('reads a UUID shortened to its first group as any UUID', () => {
    const uuid = '01a2192e-b441-7000-912d-acf0d42aa088';
    expect(matchesTranscript(['{"job":"e10a3e53-…"}'], `{"job":"${uuid}"}`)).toBe(true);
    expect(matchesTranscript(['{"job":"e10a3e53-…"}'], '{"job":"e10a3e53-x"}')).toBe(false);
  });

  it('finds blocks of commands that are not checked', () => {
    const md = [
      '# P',
      '```sh',
      'curl -s localhost:3100/healthz',
      '# {"status":"ok"}',
      '```',
      '```sh',
      'npm test',
      '```',
    ];
    expect(uncheckedBlocks('README.md', md.join('\n'))).toEqual([
      'README.md:2 (P): a ```sh block shows output or prompts; make it a checked ```console block',
    ]);
    expect(uncheckedBlocks('docs/faces/x.md', md.join('\n'))).toHaveLength(2);
    expect(uncheckedBlocks('docs/faces/x.md', '```console\nnot a command\n```\n```yaml\na: 1\n```')).toEqual([
      'docs/faces/x.md:1 (): a console block starts with a "$ " command',
    ]);
  });
});
