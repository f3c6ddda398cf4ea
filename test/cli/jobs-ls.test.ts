import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, type Node } from '../../src/node/index.js';
import { runCli } from './run-cli.js';

// `plexus jobs ls --node URL` against a running node (GET /v1/jobs), beside the offline mode.

let node: Node;
let dataDir: string;
const ids: string[] = []; // oldest first

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'plexus-cli-jobs-ls-'));
  node = createNode({ dataDir, port: 0, dev: true, demo: true });
  await node.start();
  // More than one page of the route (500), so following next_cursor is needed.
  for (let i = 0; i < 505; i++) {
    const verb = i % 5 === 0 ? 'math.evaluate' : 'echo.echo';
    const data = i % 5 === 0 ? { expression: `${i}+1` } : { i };
    const { job } = await node.runtime.invoke(
      { id: crypto.randomUUID(), kind: 'request', from: 'cli-test', to: `capability:${verb}`, verb, data },
      { face: 'test' },
    );
    ids.push(job!.id);
  }
}, 120_000);

afterAll(async () => {
  await node.stop({ drainMs: 0 });
  rmSync(dataDir, { recursive: true, force: true });
});

const at = (): string[] => ['--node', node.url];

describe('plexus jobs ls --node', () => {
  it('lists the newest jobs first, up to --limit', async () => {
    const run = await runCli(['jobs', 'ls', ...at(), '--limit', '3']);
    expect(run.code, run.err).toBe(0);
    const lines = run.out.trim().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(ids.slice(-3).reverse());
    expect(lines[0]).toMatch(/\bsucceeded\b/);
    expect(run.err).toBe('3 jobs\n');
  });

  it('follows next_cursor past one page of the route', async () => {
    const run = await runCli(['jobs', 'ls', ...at(), '--json']);
    expect(run.code, run.err).toBe(0);
    const items = run.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { job: { job_id: string; state: string }; status: string });
    expect(items.map((i) => i.job.job_id)).toEqual([...ids].reverse());
    expect(items.every((i) => i.job.state === 'succeeded')).toBe(true);
    const limited = await runCli(['jobs', 'ls', ...at(), '--json', '--limit', '502']);
    expect(limited.out.trim().split('\n')).toHaveLength(502);
  });

  it('passes --state and --verb to the node', async () => {
    const math = await runCli(['jobs', 'ls', ...at(), '--verb', 'math.*', '--state', 'succeeded', '--json']);
    expect(math.code, math.err).toBe(0);
    const mathIds = ids.filter((_, i) => i % 5 === 0).reverse();
    expect(
      math.out
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { job: { job_id: string } }).job.job_id),
    ).toEqual(mathIds);
    const none = await runCli(['jobs', 'ls', ...at(), '--state', 'failed,cancelled']);
    expect(none.code).toBe(0);
    expect(none.out).toBe('');
    expect(none.err).toBe('0 jobs\n');
  });

  it('refuses bad options before asking the node, and says when the node cannot be reached', async () => {
    for (const args of [
      ['--state', 'done'],
      ['--verb', 'Not A Verb'],
      ['--since', 'yesterday'],
      ['--limit', '0'],
      ['--order', 'recent'],
    ]) {
      const run = await runCli(['jobs', 'ls', ...at(), ...args]);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.err).toContain(args[0]);
    }
    const down = await runCli(['jobs', 'ls', '--node', 'http://127.0.0.1:9', '--limit', '1']);
    expect(down.code).toBe(1);
    expect(down.err).toContain('cannot reach the node');
  });

  it('passes --order to the node; sync jobs finish in submission order, so both orders agree here', async () => {
    for (const order of ['status', 'submitted']) {
      const run = await runCli(['jobs', 'ls', ...at(), '--order', order, '--limit', '4']);
      expect(run.code, run.err).toBe(0);
      expect(
        run.out
          .trim()
          .split('\n')
          .map((l) => l.split(/\s+/)[0]),
      ).toEqual(ids.slice(-4).reverse());
    }
    const offline = await runCli(['jobs', 'ls', '--data', dataDir, '--order', 'submitted']);
    expect(offline.code).toBe(1);
    expect(offline.err).toContain('--order needs --node');
  });

  it('keeps the offline mode without --node, with the same filters', async () => {
    const run = await runCli(['jobs', 'ls', '--data', dataDir, '--verb', 'math.evaluate', '--limit', '2']);
    expect(run.code, run.err).toBe(0);
    const lines = run.out.trim().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(ids.filter((_, i) => i % 5 === 0).slice(-2));
    expect(lines[0]).toMatch(/succeeded\s+math\.evaluate/);
  });
});
