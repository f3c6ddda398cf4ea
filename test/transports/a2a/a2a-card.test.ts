/**
 * The A2A face's agent cards (issue 14 item 1): the node card, its legacy name and the per-agent
 * cards on a real node, one skill per local verb, with `ETag` / `If-None-Match` → 304.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flattenedVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalizeJcs } from '../../../src/core/canonical/jcs.js';
import { createNode, type Node } from '../../../src/node/index.js';
import { publicKeyFromDidKey, publicKeyFromRaw } from '../../../src/security/index.js';
import { A2A_PROTOCOL_VERSION, type A2aCard } from '../../../src/transports/a2a/a2a-card.js';
import { defaultFaces } from '../../../src/node/faces.js';

/** Verifies the card's one JWS over its RFC 8785 form without `signatures`; the key is its `kid`. */
async function verifyCard(card: A2aCard): Promise<boolean> {
  const { signatures, ...unsigned } = card;
  expect(signatures).toHaveLength(1);
  const jws = signatures![0]!;
  const header = JSON.parse(Buffer.from(jws.protected, 'base64url').toString('utf8')) as { kid: string };
  const key = publicKeyFromRaw(publicKeyFromDidKey(header.kid));
  const payload = Buffer.from(canonicalizeJcs(unsigned)).toString('base64url');
  try {
    await flattenedVerify({ protected: jws.protected, signature: jws.signature, payload }, key);
    return true;
  } catch {
    return false;
  }
}

interface ListedAgent {
  readonly id: string;
  readonly origin?: string;
  readonly capabilities: readonly { readonly verb: string }[];
}

describe('A2A agent cards', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const start = async (): Promise<Node> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'plexus-a2a-card-'));
    dirs.push(dataDir);
    const node = createNode({
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      demo: true,
      faces: defaultFaces(),
    });
    nodes.push(node);
    await node.start();
    return node;
  };

  it('serves the node card with one skill per local verb, under both names', async () => {
    const node = await start();
    const res = await fetch(`${node.url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const card = (await res.json()) as A2aCard;
    expect(card.supportedInterfaces).toEqual([
      { url: `${node.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION },
      { url: `${node.url}/a2a`, protocolBinding: 'HTTP+JSON', protocolVersion: A2A_PROTOCOL_VERSION },
    ]);
    expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true });
    const listed = (await (await fetch(`${node.url}/agents?origin=local`)).json()) as {
      agents: ListedAgent[];
    };
    const expected = listed.agents.flatMap((agent) => agent.capabilities.map((c) => `${agent.id}/${c.verb}`));
    expect(expected.length).toBeGreaterThan(0);
    expect(card.skills.map((skill) => skill.id).sort()).toEqual([...expected].sort());
    for (const skill of card.skills) expect(skill.tags.length).toBeGreaterThan(0);

    expect(await verifyCard(card)).toBe(true);
    expect(await verifyCard({ ...card, name: `${card.name} (forged)` })).toBe(false);

    const legacy = await fetch(`${node.url}/.well-known/agent.json`);
    expect(await legacy.json()).toEqual(card);
  });

  it('serves a card per agent and 404 for an unknown agent', async () => {
    const node = await start();
    const listed = (await (await fetch(`${node.url}/agents?origin=local`)).json()) as {
      agents: ListedAgent[];
    };
    const agent = listed.agents[0]!;
    const res = await fetch(`${node.url}/agents/${encodeURIComponent(agent.id)}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as A2aCard;
    expect(await verifyCard(card)).toBe(true);
    expect(card.skills.map((skill) => skill.name)).toEqual(agent.capabilities.map((c) => c.verb));
    expect(card.supportedInterfaces[0]?.url).toBe(`${node.url}/agents/${encodeURIComponent(agent.id)}/a2a`);
    const unknown = await fetch(`${node.url}/agents/no-such-agent/.well-known/agent-card.json`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('answers 304 to a matching If-None-Match and 200 to a stale one', async () => {
    const node = await start();
    const first = await fetch(`${node.url}/.well-known/agent-card.json`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(`${node.url}/.well-known/agent-card.json`, {
      headers: { 'if-none-match': etag! },
    });
    expect(again.status).toBe(304);
    const stale = await fetch(`${node.url}/.well-known/agent-card.json`, {
      headers: { 'if-none-match': '"stale"' },
    });
    expect(stale.status).toBe(200);
  });
});
