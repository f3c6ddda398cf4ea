import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import { createNode, type Node } from '../../src/node/index.js';
import { keyPairFromSeed } from '../../src/security/ed25519.js';
import { identityFromPublicKey } from '../../src/security/identity.js';
import { signUcan, type Capabilities } from '../../src/security/ucan/index.js';
import { notesAgent } from '../support/notes-agent.js';

// A node with `capabilities.enabled`: every request's UCAN must cover the verb's scopes.

const owner = keyPairFromSeed('0a'.repeat(32));
const ownerDid = identityFromPublicKey(owner.publicKey).did;

const notes = notesAgent;

let node: Node | undefined;
let dir: string | undefined;

afterEach(async () => {
  await node?.stop();
  node = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function started(): Promise<Node> {
  dir = mkdtempSync(join(tmpdir(), 'plexus-caps-'));
  node = createNode({
    dataDir: dir,
    port: 0,
    dev: true,
    primitives: false,
    agents: [notes],
    capabilities: { enabled: true, roots: [ownerDid] },
  });
  await node.start();
  return node;
}

function request(capability?: string): Envelope {
  return {
    id: randomUUID(),
    kind: 'request',
    from: 'did:key:caller',
    to: 'notes',
    verb: 'notes.entry.add',
    data: { text: 'hello' },
    ...(capability === undefined ? {} : { capability }),
  };
}

function grant(n: Node, cap: Capabilities): string {
  return signUcan({ key: owner, audience: n.nodeId, capabilities: cap }).jwt;
}

describe('a node with capability checks on', () => {
  it('runs a request whose token covers the verb, and audits the mutation', async () => {
    const n = await started();
    const token = grant(n, {
      'agentese:verb/notes.entry.add': { 'notes/write': [{}] },
      'agentese:notes': { 'effect/writes': [{}] },
    });
    const answer = await n.runtime.invoke(request(token), { face: 'esrp' });
    expect(answer.envelope.kind, JSON.stringify(answer.envelope.data)).toBe('response');
    const audits = await n.log.read({ type: 'audit.capability' });
    expect(audits.map((e) => (e.data as { decision: string }).decision)).toEqual(['allowed']);
  });

  it('refuses a request without a token (UNAUTHORIZED) and one whose token lacks the scope (FORBIDDEN)', async () => {
    const n = await started();
    const none = await n.runtime.invoke(request(), { face: 'esrp' });
    expect(none.envelope.kind).toBe('error');
    expect((none.envelope.data as { code: string }).code).toBe('UNAUTHORIZED');
    const narrow = grant(n, { 'agentese:verb/notes.entry.add': { 'notes/read': [{}] } });
    const refused = await n.runtime.invoke(request(narrow), { face: 'esrp' });
    expect(refused.envelope.kind).toBe('error');
    const data = refused.envelope.data as { code: string; message: string };
    expect(data.code).toBe('FORBIDDEN');
    expect(data.message).toContain('notes');
    const audits = await n.log.read({ type: 'audit.capability' });
    expect(audits.map((e) => (e.data as { decision: string }).decision)).toContain('denied');
  });

  it('refuses a token from an issuer the node does not trust', async () => {
    const n = await started();
    const stranger = keyPairFromSeed('0b'.repeat(32));
    const token = signUcan({
      key: stranger,
      audience: n.nodeId,
      capabilities: { 'agentese:*': { '*': [{}] } },
    });
    const answer = await n.runtime.invoke(request(token.jwt), { face: 'esrp' });
    expect((answer.envelope.data as { code: string }).code).toBe('UNAUTHORIZED');
  });

  it('lets the node’s own in-process calls through, audited as forced', async () => {
    const n = await started();
    const answer = await n.runtime.invoke(request(), { face: 'internal' });
    expect(answer.envelope.kind).toBe('response');
    const audits = await n.log.read({ type: 'audit.capability' });
    expect(audits.map((e) => (e.data as { decision: string }).decision)).toEqual(['forced']);
  });
});
