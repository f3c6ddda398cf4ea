// Issue 11 item 9: one data directory, one node. A second `plexus start` on the same --data
// refused with the running node's pid and port (an OS-level lock, free again after kill -9);
// /readyz unready, with the reason, whenever the event log cannot be written.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import { PlexusError } from '../../src/core/errors.js';
import { createNode, type Node } from '../../src/node/index.js';
import { sqliteEventLog } from '../../src/store/index.js';
import { BIN, built, cleanup, exitOf, get, startNodeProcess } from '../e2e/harness.js';
import { openEventLog } from '../../src/store/event-map.js';

const dirs: string[] = [];
const nodes: Node[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-lock-'));
  dirs.push(dir);
  return dir;
}

function echo(text: string): Envelope {
  return { id: randomUUID(), kind: 'request', from: 'tester', to: 'echo', verb: 'echo.echo', data: { text } };
}

beforeAll(() => {
  expect(built(), 'run `npm run build` first').toBe(true);
});

afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
});

afterAll(async () => {
  await cleanup();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs `plexus start` on `dataDir` to its end (bounded: a start that keeps running is killed). */
function secondStart(dataDir: string): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [BIN, 'start', '--port', '0', '--dev', '--data', dataDir], {
    encoding: 'utf8',
    timeout: 15_000,
    env: { ...process.env, PLEXUS_NODE: '' },
  });
  return { status: run.status, stderr: run.stderr };
}

describe('a second node on one data directory', () => {
  it('is refused, naming the running node’s pid and port; after kill -9 a restart takes the directory', async () => {
    const first = await startNodeProcess();
    const port = new URL(first.url).port;
    const second = secondStart(first.dataDir);
    expect(second.status, 'the second start must exit, not serve').not.toBe(null);
    expect(second.status).not.toBe(0);
    expect(second.stderr).toContain(`pid ${first.child.pid}`);
    expect(second.stderr).toContain(`port ${port}`);
    expect(second.stderr).toContain(first.dataDir);
    // The first node still writes.
    expect((await get(`${first.url}/readyz`)).status).toBe(200);

    first.child.kill('SIGKILL');
    expect(await exitOf(first)).toBe('SIGKILL');
    const restarted = await startNodeProcess({ dataDir: first.dataDir });
    expect((await get(`${restarted.url}/readyz`)).status).toBe(200);
    restarted.child.kill('SIGTERM');
    expect(await exitOf(restarted)).toBe(0);
  });

  it('is refused in-process too, and the directory is free again once the first stops', async () => {
    const dataDir = tempDir();
    const first = createNode({ dataDir, port: 0, dev: true, demo: true });
    nodes.push(first);
    await first.start();
    const second = createNode({ dataDir, port: 0, dev: true });
    const refusal = await second.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(PlexusError);
    expect((refusal as PlexusError).message).toContain(`pid ${process.pid}`);
    expect((refusal as PlexusError).message).toContain(`port ${first.port}`);
    expect((refusal as PlexusError).retryable).toBe(false);
    // The refused node left the first one whole.
    const answer = await first.runtime.invoke(echo('still mine'), { face: 'internal' });
    expect(answer.envelope.kind).toBe('response');
    await first.stop();
    await second.start();
    nodes.push(second);
    expect((await get(`${second.url}/readyz`)).status).toBe(200);
  });
});

describe('/readyz when the event log cannot be written', () => {
  it('is 503 with the reason when another writer moved the log under the node', async () => {
    const dataDir = tempDir();
    const node = createNode({ dataDir, port: 0, dev: true, demo: true });
    nodes.push(node);
    await node.start();
    expect((await node.runtime.invoke(echo('before'), { face: 'internal' })).envelope.kind).toBe('response');
    // A writer that is not a node (the lock only keeps nodes out) appends behind its back.
    const intruder = sqliteEventLog({ dir: dataDir });
    await intruder.start();
    await openEventLog(intruder).append({ type: 'test.intruder', data: { n: 1 } });
    await intruder.stop();
    const failed = await node.runtime.invoke(echo('after'), { face: 'internal' }).then(
      (answer) => answer.envelope,
      (error: unknown) => error,
    );
    expect(failed).not.toMatchObject({ kind: 'response' });
    const ready = await get(`${node.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unavailable');
    expect(ready.body.reason).toMatch(/^the event log cannot be written: .*another writer/);
    // The liveness probe is not the readiness probe.
    expect((await get(`${node.url}/healthz`)).status).toBe(200);
  });

  it('is 503 while the database is locked by another connection, and ready again once a write succeeds', async () => {
    const dataDir = tempDir();
    const node = createNode({ dataDir, port: 0, dev: true, demo: true });
    nodes.push(node);
    await node.start();
    expect((await get(`${node.url}/readyz`)).status).toBe(200);
    const holder = new Database(join(dataDir, 'events.db'), { timeout: 0 });
    try {
      holder.exec('BEGIN IMMEDIATE'); // holds the write lock: the node's commits time out
      const failed = await node.runtime.invoke(echo('locked out'), { face: 'internal' }).then(
        (answer) => answer.envelope,
        (error: unknown) => error,
      );
      expect(failed).not.toMatchObject({ kind: 'response' });
      const ready = await get(`${node.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.body.reason).toMatch(/^the event log cannot be written: /);
      expect(ready.body.reason).toMatch(/locked|busy/i);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const answer = await node.runtime.invoke(echo('free again'), { face: 'internal' });
    expect(answer.envelope.kind).toBe('response');
    expect((await get(`${node.url}/readyz`)).status).toBe(200);
  });
});
