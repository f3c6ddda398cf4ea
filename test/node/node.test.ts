import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import { createNode, nodeKeyPath, type Node, type NodeInit } from '../../src/node/index.js';
import { generateApiKey, issueTokenForCli } from '../../src/security/index.js';

const dirs: string[] = [];
const nodes: Node[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-node-'));
  dirs.push(dir);
  return dir;
}

async function started(init: NodeInit = {}): Promise<Node> {
  const node = createNode({ dataDir: tempDir(), port: 0, dev: true, demo: true, ...init });
  nodes.push(node);
  await node.start();
  return node;
}

afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
});

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function slowRequest(seconds: number, steps: number): Envelope {
  return {
    id: randomUUID(),
    kind: 'request',
    from: 'tester',
    to: 'demo',
    verb: 'demo.slow',
    data: { seconds, steps },
  };
}

describe('createNode', () => {
  it('creates the data directory and a 0600 node key on first start, and reuses it', async () => {
    const dataDir = join(tempDir(), 'nested', 'data');
    const first = await started({ dataDir });
    const id = first.nodeId;
    expect(id).toMatch(/^did:key:z6Mk/);
    expect(statSync(nodeKeyPath(dataDir)).mode & 0o777).toBe(0o600);
    await first.stop();
    const second = await started({ dataDir });
    expect(second.nodeId).toBe(id);
  });

  it('serves the faces on one port (port 0 picks a free one)', async () => {
    const node = await started();
    expect(node.port).toBeGreaterThan(0);
    expect(node.url).toBe(`http://127.0.0.1:${node.port}`);
    expect(await (await fetch(`${node.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const agents = (await (await fetch(`${node.url}/agents`)).json()) as { agents: { id: string }[] };
    expect(agents.agents.map((a) => a.id)).toEqual([
      'conformance',
      'demo',
      'echo',
      'guard',
      'improving',
      'learning',
      'math',
      'memory',
      'micropayments',
      'recursive',
      'state',
      'tck',
      'text',
      'tool',
    ]);
  });

  it('refuses requests without credentials when not in dev mode, and admits node tokens and API keys', async () => {
    const apiKey = generateApiKey();
    const node = await started({ dev: false, apiKeys: [{ hash: apiKey.hash, subject: 'ci' }] });
    expect(node.auth.required).toBe(true);
    expect((await fetch(`${node.url}/agents`)).status).toBe(401);
    const { token } = await issueTokenForCli({ keyFile: nodeKeyPath(node.dataDir), subject: 'alice' });
    expect(
      (await fetch(`${node.url}/agents`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
    expect(
      (await fetch(`${node.url}/agents`, { headers: { authorization: `Bearer ${apiKey.key}` } })).status,
    ).toBe(200);
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
  });

  it('has no url, port or runtime before start, and stops twice safely', async () => {
    const node = createNode({ dataDir: tempDir(), port: 0 });
    expect(() => node.url).toThrow(/not started/);
    expect(() => node.runtime).toThrow(/not started/);
    await node.stop();
    await node.start();
    await Promise.all([node.stop(), node.stop()]);
    await node.stop();
  });

  it('says clearly when the port is taken', async () => {
    const node = await started();
    const other = createNode({ dataDir: tempDir(), port: node.port });
    await expect(other.start()).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/already in use/),
    });
  });

  it('drains a running job at stop, within the bound', async () => {
    const dataDir = tempDir();
    const node = await started({ dataDir });
    const { job } = await node.runtime.submit(slowRequest(1, 4), { face: 'internal' });
    await node.stop({ drainMs: 10_000 });
    const again = await started({ dataDir });
    expect((await again.runtime.jobs.get(job.id)).state).toBe('COMPLETED');
  });

  it('cancels what is still running when the drain bound is reached', async () => {
    const dataDir = tempDir();
    const node = await started({ dataDir });
    const { job } = await node.runtime.submit(slowRequest(60, 60), { face: 'internal' });
    await node.stop({ drainMs: 50 });
    const again = await started({ dataDir });
    expect((await again.runtime.jobs.get(job.id)).state).toBe('CANCELED');
  });

  it('keeps nothing across restarts with the memory store', async () => {
    const dataDir = tempDir();
    const node = await started({ dataDir, store: 'memory' });
    const { job } = await node.runtime.submit(slowRequest(0, 1), { face: 'internal' });
    await node.runtime.jobs.wait(job.id);
    await node.stop();
    const again = await started({ dataDir, store: 'memory' });
    await expect(again.runtime.jobs.get(job.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('listens on HTTPS when given a certificate and key', async () => {
    const dir = tempDir();
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore', timeout: 20_000 },
    );
    const node = await started({ tls: { cert, key } });
    expect(node.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(`${node.url}/healthz`, { ca: readFileSync(cert), timeout: 5000 }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => {
          resolve(text);
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(JSON.parse(body)).toEqual({ status: 'ok' });
  });

  it('refuses to start with a TLS file it cannot read, naming it', async () => {
    const node = createNode({
      dataDir: tempDir(),
      port: 0,
      tls: { cert: '/nonexistent/c.pem', key: '/nonexistent/k.pem' },
    });
    await expect(node.start()).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: expect.stringMatching(/TLS cert \/nonexistent\/c\.pem/),
    });
  });
});
