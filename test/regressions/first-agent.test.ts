// Issue 11 item 12: the README's "your first agent" block (its section of README.md) is at most 25 lines, its code is examples/first-agent.js, and its commands —
// run from examples/ against a real node — print what it shows. (On the original main,
// `plexus start --agent` does not exist.)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, built, cleanup, exitOf, startNodeProcess, tempDir } from '../e2e/harness.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The README's "## Your first agent" section, up to the next `## ` heading. */
const SNIPPET = README.slice(
  README.indexOf('## Your first agent'),
  README.indexOf('\n## ', README.indexOf('## Your first agent') + 1) + 1,
);
const EXAMPLES = join(ROOT, 'examples');

/** The contents of the fenced blocks of `lang` in the snippet. */
function blocks(lang: string): string[] {
  return [...SNIPPET.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] ?? '');
}

/** Splits a command line into words (plain words and '…' quoted ones, as the snippet uses). */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

/** Runs the CLI in `cwd` and resolves with its exit code and output. */
function run(args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.once('close', (code) => {
      done({ code, out, err });
    });
  });
}

beforeAll(() => {
  expect(built(), 'run `npm run build` first').toBe(true);
});
afterAll(cleanup);

describe('the "your first agent" block', () => {
  it('fits in 25 lines and shows examples/first-agent.js as it is', () => {
    expect(SNIPPET.trimEnd().split('\n').length).toBeLessThanOrEqual(25);
    expect(blocks('js')).toEqual([readFileSync(join(EXAMPLES, 'first-agent.js'), 'utf8')]);
  });

  it('runs: its start command hosts the agent, its call prints what the block shows', async () => {
    const [console] = blocks('console');
    const lines = (console ?? '').trimEnd().split('\n');
    const commands = lines.filter((l) => l.startsWith('$ ')).map((l) => words(l.slice(2)));
    expect(commands).toHaveLength(2);
    const [start, call] = commands as [string[], string[]];
    const shown = lines.slice(lines.findIndex((l) => l.startsWith('$ npx plexus call')) + 1).join('\n');
    expect(start.slice(0, 3)).toEqual(['npx', 'plexus', 'start']);
    expect(call.slice(0, 3)).toEqual(['npx', 'plexus', 'call']);

    // From examples/ the block's `./first-agent.js` is the example; `plexus/sdk` resolves to this package.
    const node = await startNodeProcess({
      flags: [...start.slice(3), '--memory'],
      dataDir: join(tempDir('plexus-first-agent-'), 'data'),
      cwd: EXAMPLES,
    });
    const answer = await run([...call.slice(2), '--node', node.url], EXAMPLES);
    expect(answer.err).toBe('');
    expect(answer.code).toBe(0);
    expect(answer.out).toBe(`${shown}\n`);
    node.child.kill('SIGTERM');
    expect(await exitOf(node)).toBe(0);
  });
});
