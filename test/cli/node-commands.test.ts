import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCall } from '../../src/cli/commands/call.js';
import { runStart } from '../../src/cli/commands/start.js';
import { percentOf, progressDisplay } from '../../src/cli/progress.js';
import { sseParser } from '../../src/cli/sse.js';
import { capturedIo } from '../../src/cli/io.js';
import { createNode, nodeKeyPath, type Node } from '../../src/node/index.js';
import { tokenVerifier, readKeyFile } from '../../src/security/index.js';
import { runCli } from './run-cli.js';
import { until } from '../support/until.js';

const dirs: string[] = [];
let node: Node;
let dataDir: string;

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-cli-node-'));
  dirs.push(dir);
  return dir;
}

beforeAll(async () => {
  dataDir = tempDir();
  node = createNode({ dataDir, port: 0, dev: true, demo: true });
  await node.start();
});

afterAll(async () => {
  await node.stop({ drainMs: 0 });
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const at = (): string[] => ['--node', node.url];

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('plexus call', () => {
  it('calls a verb synchronously and prints its result', async () => {
    const run = await runCli(['call', 'math.evaluate', ...at(), '--data', '{"expression":"2*(3+4)^2"}']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual({ expression: '2*(3+4)^2', value: 98 });
  });

  it('reads --data from a file and --input text inputs', async () => {
    const file = join(tempDir(), 'in.json');
    writeFileSync(file, '{"sentences":1}');
    const run = await runCli([
      'call',
      'text.summarize',
      ...at(),
      '--data',
      `@${file}`,
      '--input',
      'text=Cats purr. Dogs bark.',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ sentences: ['Cats purr.'] });
  });

  it('prints the ESRP response with --json', async () => {
    const run = await runCli(['call', 'echo.echo', ...at(), '--data', '{"x":1.5}', '--json']);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.out) as { status: string; outputs: { data: string }[] };
    expect(body.status).toBe('succeeded');
    expect(JSON.parse(body.outputs[0]!.data)).toEqual({ x: 1.5 });
  });

  it('fails with one line naming the codes and the position of the error', async () => {
    const run = await runCli(['call', 'math.evaluate', ...at(), '--data', '{"expression":"1+"}']);
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toMatch(
      /^plexus: math\.evaluate \(job [0-9a-f-]+\) failed: INVALID_INPUT_SCHEMA\/INVALID_PARAMS: unexpected end of expression at position 3\n$/,
    );
  });

  it('says when the verb is unknown', async () => {
    const run = await runCli(['call', 'nope.verb', ...at()]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/UNKNOWN_VERB: no agent here offers the verb "nope\.verb"/);
  });

  it('refuses a bad verb or bad JSON before sending anything', async () => {
    expect((await runCli(['call', 'Not A Verb', ...at()])).code).toBe(1);
    const run = await runCli(['call', 'echo.echo', ...at(), '--data', '{"a":']);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^plexus: --data is not valid JSON at line 1, column 6/);
    expect((await runCli(['call', 'echo.echo@2', ...at()])).err).toMatch(/without "@2"/);
  });

  it('submits a job with --async and prints its id', async () => {
    const run = await runCli(['call', 'demo.slow', ...at(), '--data', '{"seconds":0}', '--async']);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^[0-9a-f-]{36}\n$/);
    const id = run.out.trim();
    await node.runtime.jobs.wait(id);
    const show = await runCli(['jobs', 'show', id, ...at()]);
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/^state\s+succeeded \(succeeded\)$/m);
    expect(show.out).toMatch(/result\s+\{"completed":true,"seconds":0,"steps":1\}/);
  });

  it('follows a job, one line per event when not on a terminal, then prints the result', async () => {
    const run = await runCli(['call', 'demo.slow', ...at(), '--data', '{"seconds":0,"steps":3}', '--follow']);
    expect(run.code).toBe(0);
    expect(run.err.split('\n').filter(Boolean)).toEqual([
      'job_queued',
      'job_started',
      'job_progress {"of":3,"percent":33,"step":1}',
      'job_progress {"of":3,"percent":66,"step":2}',
      'job_progress {"of":3,"percent":100,"step":3}',
      'job_succeeded',
    ]);
    expect(JSON.parse(run.out)).toEqual({ completed: true, seconds: 0, steps: 3 });
  });

  it('says clearly when no node answers', async () => {
    const port = await freePort();
    const run = await runCli(['call', 'echo.echo', '--node', `http://127.0.0.1:${port}`]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(
      /^plexus: cannot reach the node at http:\/\/127\.0\.0\.1:\d+: connection refused; is `plexus start` running there\?/,
    );
  });
});

describe('plexus jobs', () => {
  it('cancels a running job', async () => {
    const submitted = await runCli(['call', 'demo.slow', ...at(), '--data', '{"seconds":30}', '--async']);
    const id = submitted.out.trim();
    const run = await runCli(['jobs', 'cancel', id, ...at(), '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ status: 'failed', job: { job_id: id, state: 'cancelled' } });
  });

  it('says a job does not exist', async () => {
    const run = await runCli(['jobs', 'show', 'no-such-job', ...at()]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^plexus: show job no-such-job: 404/);
  });

  it('lists jobs offline from the data directory', async () => {
    const run = await runCli(['jobs', 'ls', '--data', dataDir, '--state', 'completed']);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/succeeded\s+math\.evaluate/);
    expect(run.out).not.toMatch(/FAILED/);
    const json = await runCli(['jobs', 'ls', '--data', dataDir, '--json', '--limit', '1']);
    expect(json.out.trim().split('\n')).toHaveLength(1);
    expect((await runCli(['jobs', 'ls', '--data', dataDir, '--state', 'done'])).code).toBe(1);
  });
});

describe('plexus agents', () => {
  it('lists and shows agent cards', async () => {
    const ls = await runCli(['agents', 'ls', ...at()]);
    expect(ls.code).toBe(0);
    expect(ls.out).toMatch(/^math\s+local\s+Arithmetic evaluator: math\.evaluate$/m);
    const filtered = await runCli(['agents', 'ls', ...at(), '--capability', 'echo.echo', '--json']);
    expect((JSON.parse(filtered.out) as { id: string }[]).map((c) => c.id)).toEqual(['echo']);
    const show = await runCli(['agents', 'show', 'text', ...at()]);
    expect(JSON.parse(show.out)).toMatchObject({ id: 'text', capabilities: [{ verb: 'text.summarize' }] });
    const missing = await runCli(['agents', 'show', 'ghost', ...at()]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/404 NOT_FOUND/);
  });
});

describe('plexus token issue', () => {
  it('prints a token the node accepts, signed with the data directory key', async () => {
    const run = await runCli([
      'token',
      'issue',
      '--data',
      dataDir,
      '--subject',
      'alice',
      '--ttl',
      '15m',
      '--scope',
      'jobs:read',
    ]);
    expect(run.code).toBe(0);
    const { key } = await readKeyFile(nodeKeyPath(dataDir));
    const principal = await tokenVerifier({ issuerKeys: [key] }).verify(run.out.trim());
    expect(principal).toMatchObject({ id: 'alice', scopes: ['jobs:read'] });
  });

  it('says when there is no key', async () => {
    const run = await runCli(['token', 'issue', '--data', tempDir(), '--subject', 'alice']);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/node\.key: no such file/);
  });
});

describe('plexus replay', () => {
  it('verifies a log and its projections, then names the first bad event', async () => {
    const dir = tempDir();
    const other = createNode({ dataDir: dir, port: 0, dev: true, demo: true });
    await other.start();
    await other.stop();
    const ok = await runCli(['replay', '--data', dir, '--verify']);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^chain ok: \d+ events/);
    expect(ok.out).toMatch(/replay ok: \d+ events, 17 projections rebuilt, \d+ comparisons passed/);
    const db = new Database(join(dir, 'events.db'));
    db.prepare("UPDATE events SET type = 'agent.forged' WHERE seq = 2").run();
    db.close();
    const bad = await runCli(['replay', '--data', dir]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^plexus: replay failed: the hash chain breaks at event seq 2/);
  });

  it('refuses a directory that holds no log', async () => {
    const run = await runCli(['replay', '--data', tempDir()]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/no event log at/);
  });
});

describe('plexus start', () => {
  it('prints where it listens, then stops when asked', async () => {
    const io = capturedIo('', tempDir());
    let stop: (signal: string) => void = () => undefined;
    const shutdown = new Promise<string>((resolve) => (stop = resolve));
    const running = runStart(io, { data: 'state', port: '0', dev: true, demo: true }, shutdown);
    await until(() => io.out().includes('press Ctrl-C'), { what: 'the node to print its banner' });
    const url = /listening on (\S+)/.exec(io.out())?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(io.out()).toMatch(/auth is off: dev mode on loopback/);
    expect(io.out()).toMatch(/demo\.slow/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    stop('SIGTERM');
    await running;
    expect(io.err()).toMatch(
      /SIGTERM: stopping; draining in-flight jobs for up to 10000 ms\nplexus: stopped\n$/,
    );
  });

  it('reports a configuration error in one line, without a stack', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plexus.yaml'), 'port: 99999\n');
    const run = await runCli(['start', '--config', join(dir, 'plexus.yaml')]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `plexus: ${join(dir, 'plexus.yaml')}: "port" must be a whole number from 0 to 65535, got 99999\n`,
    );
  });

  it('refuses a non-loopback host without TLS', async () => {
    const run = await runCli(['start', '--host', '0.0.0.0', '--data', tempDir()]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^plexus: refusing to listen on 0\.0\.0\.0 without TLS/);
  });

  it('refuses a missing --config file and a bad --port', async () => {
    expect((await runCli(['start', '--config', '/nonexistent.yaml'])).err).toMatch(/no such file/);
    expect((await runCli(['start', '--port', 'abc'])).err).toMatch(/--port must be a whole number/);
  });
});

describe('plexus call --follow and Ctrl-C', () => {
  it('cancels the job on the first interrupt and reports it cancelled', async () => {
    const io = capturedIo();
    let interrupt: () => void = () => undefined;
    const terminal = {
      isTTY: false,
      onInterrupt: (handler: () => void) => {
        interrupt = handler;
        return () => undefined;
      },
    };
    const running = runCall(
      io,
      'demo.slow',
      { node: node.url, data: '{"seconds":30}', input: [], async: false, follow: true, json: false },
      terminal,
    );
    await until(() => io.err().includes('job_started'), { what: 'the job to start' });
    interrupt();
    await expect(running).rejects.toMatchObject({
      code: 'CANCELLED',
      message: expect.stringMatching(/demo\.slow \(job [0-9a-f-]+\) was cancelled/),
    });
    expect(io.err()).toMatch(/cancelling\njob_cancelled/);
  });
});

describe('sseParser', () => {
  it('splits events across chunks and line endings, keeping the last id', () => {
    const parser = sseParser();
    expect(parser.push(': comment\r\nevent: a\r\nid: 1\r\ndata: x')).toEqual([]);
    expect(parser.push('\r\ndata: y\r\n\r\ndata: z\n\nevent: b\rdata:')).toEqual([
      { id: '1', event: 'a', data: 'x\ny' },
      { id: '1', event: 'message', data: 'z' },
    ]);
    expect(parser.push('\r\r')).toEqual([]); // a last lone CR may be half of CRLF
    expect(parser.push('\n')).toEqual([{ id: '1', event: 'b', data: '' }]);
  });
});

describe('progressDisplay', () => {
  it('rewrites one status line with a bar on a terminal', () => {
    let out = '';
    const display = progressDisplay((t) => (out += t), true, 'job');
    display.update({ name: 'job_started' });
    display.update({ name: 'job_progress', data: { step: 1, of: 4 } });
    display.done();
    expect(out).toContain('\r\x1b[K');
    expect(out).toContain('job progress [#####---------------] 25%');
    expect(out.endsWith('\r\x1b[K')).toBe(true);
  });

  it('reads percentages in the usual shapes', () => {
    expect(percentOf({ percent: 50 })).toBe(50);
    expect(percentOf({ progress: { step: 3, of: 4 } })).toBe(75);
    expect(percentOf({ done: 1, total: 2 })).toBe(50);
    expect(percentOf('half')).toBeUndefined();
  });
});
