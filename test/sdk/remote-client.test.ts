import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, type Node } from '../../src/node/index.js';
import {
  InvocationError,
  createPlexus,
  isRefusal,
  newTraceparent,
  remoteClient,
  traceIdOf,
} from '../../src/sdk/index.js';
import { conceptAgent, runs, soulAgent } from './sdk-fixtures.js';

describe('remoteClient', () => {
  let dir: string;
  let node: Node;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plexus-sdk-remote-'));
    node = createNode({ dataDir: dir, port: 0, dev: true });
    await node.start();
    const plexus = createPlexus({ node });
    await plexus.register(soulAgent);
    await plexus.register(conceptAgent);
  });

  afterAll(async () => {
    await node.stop({ drainMs: 0 });
    await rm(dir, { recursive: true, force: true });
  });

  it('invokes a verb over ESRP with the in-process signature', async () => {
    const remote = remoteClient(node.url);
    await expect(remote.invoke('concept.summary.shout', { text: 'hi there' })).resolves.toEqual({
      text: 'HI THERE',
    });
  });

  it('carries the trace context into the node log', async () => {
    const parent = newTraceparent();
    await remoteClient(node.url).invoke('soul.memory.recall', { query: 'rain' }, { traceparent: parent });
    const events = await node.log.read({ trace: parent, type: 'job.submitted' });
    expect(events).toHaveLength(1);
    expect(traceIdOf(events[0]?.trace)).toBe(traceIdOf(parent));
    expect(events[0]?.trace).not.toBe(parent);
  });

  it('returns refusals as results and throws typed errors', async () => {
    const remote = remoteClient(`${node.url}/`);
    const refusal = await remote.invoke('soul.memory.recall', { query: 'forbidden' });
    expect(isRefusal(refusal)).toBe(true);
    const failure = await remote.invoke('soul.memory.recall', { query: 'missing' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(InvocationError);
    expect(failure).toMatchObject({ code: 'NOT_FOUND', verb: 'soul.memory.recall' });
    expect((failure as InvocationError).jobId).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await remote.invoke('soul.memory.recall', { nothing: 1 }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('runs every call unless the caller names an idempotency key', async () => {
    const remote = remoteClient(node.url);
    const before = runs.get('concept.summary.shout') ?? 0;
    await remote.invoke('concept.summary.shout', { text: 'same' });
    await remote.invoke('concept.summary.shout', { text: 'same' });
    await remote.invoke('concept.summary.shout', { text: 'keyed' }, { idempotencyKey: 'remote-k' });
    await remote.invoke('concept.summary.shout', { text: 'keyed' }, { idempotencyKey: 'remote-k' });
    expect(runs.get('concept.summary.shout')).toBe(before + 3);
  });

  it('queries the node registry by pattern', async () => {
    const verbs = await remoteClient(node.url).query('concept.*');
    expect(verbs.map((v) => v.verb)).toEqual(['concept.summary.compress', 'concept.summary.shout']);
    expect(verbs[0]?.spec).toBeUndefined();
  });

  it('refuses what ESRP cannot carry, bad URLs and bad causation ids', async () => {
    const remote = remoteClient(node.url);
    await expect(
      remote.invoke('concept.summary.shout', { text: 'x' }, { tenantId: 't' }),
    ).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: /tenantId/,
    });
    await expect(
      remote.invoke('concept.summary.shout', { text: 'x' }, { causationId: 'job-1' }),
    ).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    expect(() => remoteClient('not a url')).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS' }));
    expect(() => remoteClient('ftp://127.0.0.1')).toThrow(/http/);
  });

  it('reports an unreachable node as PEER_UNAVAILABLE', async () => {
    const other = createNode({ dataDir: join(dir, 'other'), port: 0, dev: true });
    await other.start();
    const url = other.url;
    await other.stop({ drainMs: 0 });
    await expect(remoteClient(url).invoke('concept.summary.shout', { text: 'x' })).rejects.toMatchObject({
      code: 'PEER_UNAVAILABLE',
    });
  });
});
