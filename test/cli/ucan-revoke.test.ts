import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import { createNode, type Node } from '../../src/node/index.js';
import { runCli } from './run-cli.js';

// `plexus ucan revoke`: against a stopped node's data directory, and against a running node.

const SEEDS = { alice: '44', mallory: '55' } as const;
let dir: string;
const did: Record<string, string> = {};
let node: Node | undefined;

const cli = (args: string[]) => runCli(args, '', dir);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plexus-revoke-'));
  for (const [name, seed] of Object.entries(SEEDS)) {
    const run = await cli(['keys', 'generate', '--seed-hex', seed.repeat(32), '--out', `${name}.key`]);
    expect(run.code, run.err).toBe(0);
    did[name] = /did (did:key:\S+)/.exec(run.out)?.[1] as string;
  }
  return () => {
    rmSync(dir, { recursive: true, force: true });
  };
});

afterEach(async () => {
  await node?.stop();
  node = undefined;
});

async function started(data: string): Promise<Node> {
  node = createNode({
    dataDir: data,
    port: 0,
    dev: true,
    primitives: false,
    demo: ['echo'],
    capabilities: { enabled: true },
  });
  await node.start();
  return node;
}

/** The node key grants alice echo; alice delegates it to the node. */
async function container(data: string, nodeId: string): Promise<string> {
  const issued = await cli(['ucan', 'issue', '--data', data, '--audience', did['alice'] as string, '--all']);
  expect(issued.code, issued.err).toBe(0);
  const delegated = await cli([
    'ucan',
    'delegate',
    '--key',
    'alice.key',
    '--proof',
    issued.out.trim(),
    '--audience',
    nodeId,
    '--all',
    '--ttl',
    '10m',
  ]);
  expect(delegated.code, delegated.err).toBe(0);
  return delegated.out.trim();
}

async function codeOf(n: Node, capability: string): Promise<string | undefined> {
  const request: Envelope = {
    id: randomUUID(),
    kind: 'request',
    from: 'cli-test',
    to: 'capability:echo.echo',
    verb: 'echo.echo',
    data: { hi: 1 },
    capability,
  };
  const answer = await n.runtime.invoke(request, { face: 'esrp' });
  return answer.envelope.kind === 'error' ? (answer.envelope.data as { code: string }).code : undefined;
}

describe('plexus ucan revoke', () => {
  it('writes a revocation into a stopped node’s data directory; the node refuses the token after restart', async () => {
    const data = join(dir, 'offline');
    const n = await started(data);
    const nodeId = n.nodeId;
    const token = await container(data, nodeId);
    expect(await codeOf(n, token)).toBeUndefined();
    await n.stop();

    const outsider = await cli(['ucan', 'revoke', token, '--key', 'mallory.key', '--data', data]);
    expect(outsider.code).not.toBe(0);
    expect(outsider.err).toContain('only an issuer may revoke it');

    const revoked = await cli(['ucan', 'revoke', token, '--key', 'alice.key', '--data', data]);
    expect(revoked.code, revoked.err).toBe(0);
    expect(revoked.out).toContain(`by ${did['alice'] as string}`);

    const again = await started(data);
    expect(await codeOf(again, token)).toBe('UNAUTHORIZED');
  });

  it('posts a revocation to a running node, which refuses the token at once', async () => {
    const data = join(dir, 'online');
    const n = await started(data);
    const token = await container(data, n.nodeId);
    expect(await codeOf(n, token)).toBeUndefined();
    const revoked = await cli(['ucan', 'revoke', token, '--key', 'alice.key', '--node', n.url, '--json']);
    expect(revoked.code, revoked.err).toBe(0);
    expect((JSON.parse(revoked.out) as { iss: string }).iss).toBe(did['alice']);
    expect(await codeOf(n, token)).toBe('UNAUTHORIZED');

    const missing = await cli(['ucan', 'revoke', '--key', 'alice.key', '--node', n.url]);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain('--cid');
  });
});
