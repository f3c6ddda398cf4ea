/**
 * `NodeInit.faces`: a node serves exactly the faces it is given (default: `defaultFaces(init)`),
 * and a face added beside the defaults is registered, started after listening and stopped with
 * the node.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createNode, defaultFaces, type Face, type Node, type NodeInit } from '../../src/node/index.js';
import { healthFace } from '../../src/transports/http/health-face.js';

describe('NodeInit.faces', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const start = async (init: NodeInit): Promise<Node> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'plexus-node-faces-'));
    dirs.push(dataDir);
    const node = createNode({ dataDir, store: 'memory', port: 0, dev: true, demo: true, ...init });
    nodes.push(node);
    await node.start();
    return node;
  };

  it('serves only the faces given', async () => {
    const node = await start({ faces: [healthFace()] });
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
    const agents = await fetch(`${node.url}/agents`);
    expect(agents.status).toBe(404);
    expect(await agents.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('serves the default faces by default, and one added beside them', async () => {
    const calls: string[] = [];
    const extra = (): Face => ({
      name: 'extra',
      register: (server) => {
        calls.push('register');
        server.http.get('/extra', () => ({ extra: true }));
      },
      start: () => {
        calls.push('start');
        return Promise.resolve();
      },
      stop: () => {
        calls.push('stop');
        return Promise.resolve();
      },
    });
    const init: NodeInit = {};
    const node = await start({ faces: [...defaultFaces(init), extra] });
    expect(calls).toEqual(['register', 'start']);
    expect(await (await fetch(`${node.url}/extra`)).json()).toEqual({ extra: true });
    expect((await fetch(`${node.url}/agents`)).status).toBe(200);
    await node.stop();
    expect(calls).toEqual(['register', 'start', 'stop']);
  });
});
