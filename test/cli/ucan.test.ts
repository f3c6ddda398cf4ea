import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCapabilityContainer } from '../../src/security/ucan/chain-container.js';
import { decodeUcan } from '../../src/security/ucan/ucan-token.js';
import { runCli } from './run-cli.js';

const SEEDS = { root: '11', alice: '22', node: '33' } as const;

describe('plexus ucan', () => {
  let dir: string;
  const did: Record<string, string> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'plexus-ucan-'));
    for (const [name, seed] of Object.entries(SEEDS)) {
      const run = await runCli(
        ['keys', 'generate', '--seed-hex', seed.repeat(32), '--out', `${name}.key`],
        '',
        dir,
      );
      expect(run.code, run.err).toBe(0);
      did[name] = /did (did:key:\S+)/.exec(run.out)?.[1] as string;
    }
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (args: string[], stdin = '') => runCli(args, stdin, dir);

  async function issueAndDelegate(): Promise<{ root: string; chain: string }> {
    const issued = await cli([
      'ucan',
      'issue',
      '--key',
      'root.key',
      '--audience',
      did['alice'] as string,
      '--scope',
      'soul:read',
      '--scope',
      'atelier:write',
      '--effect',
      'writes:session/*',
    ]);
    expect(issued.code, issued.err).toBe(0);
    const root = issued.out.trim();
    const delegated = await cli([
      'ucan',
      'delegate',
      '--key',
      'alice.key',
      '--proof',
      root,
      '--audience',
      did['node'] as string,
      '--scope',
      'soul:read',
      '--ttl',
      '15m',
    ]);
    expect(delegated.code, delegated.err).toBe(0);
    return { root, chain: delegated.out.trim() };
  }

  it('issues a root token and delegates a narrower one, printing containers', async () => {
    const { root, chain } = await issueAndDelegate();
    const rootToken = decodeUcan(root);
    expect(rootToken.payload).toMatchObject({
      iss: did['root'],
      aud: did['alice'],
      cap: {
        'agentese:*': { 'soul/read': [{}], 'atelier/write': [{}] },
        'agentese:session/*': { 'effect/writes': [{}] },
      },
    });
    const { leaf, proofs } = parseCapabilityContainer(chain);
    expect(proofs).toEqual([root]);
    const payload = decodeUcan(leaf).payload;
    expect(payload).toMatchObject({ iss: did['alice'], aud: did['node'], prf: [rootToken.cid] });
    expect((payload.exp as number) - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(900);
  });

  it('inspects a chain without trusting it', async () => {
    const { chain } = await issueAndDelegate();
    const run = await cli(['ucan', 'inspect', chain]);
    expect(run.code, run.err).toBe(0);
    const out = JSON.parse(run.out);
    expect(out.leaf.signatureValid).toBe(true);
    expect(out.leaf.payload.iss).toBe(did['alice']);
    expect(out.proofs).toHaveLength(1);
    expect(out.proofs[0].payload.iss).toBe(did['root']);
  });

  it('verifies a chain for a node and the scopes asked for, reading it from a file', async () => {
    const { chain } = await issueAndDelegate();
    writeFileSync(join(dir, 'chain.txt'), chain);
    const args = [
      'ucan',
      'verify',
      '@chain.txt',
      '--audience',
      did['node'] as string,
      '--root',
      did['root'] as string,
    ];
    const ok = await cli([...args, '--verb', 'soul.memory.recall', '--scope', 'soul:read']);
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toMatch(/^valid: bafkrei\S+ from did:key:\S+, 2 link\(s\) rooted in did:key:/);
    const missing = await cli([...args, '--scope', 'atelier:write']);
    expect(missing.code).toBe(1);
    expect(missing.out).toContain('refused: FORBIDDEN');
    expect(JSON.parse(missing.out.split('\n')[1] as string)).toMatchObject({
      reason: 'missing-scope',
      scope: 'atelier:write',
    });
  });

  it('reports a broken chain with the link at fault', async () => {
    const { chain } = await issueAndDelegate();
    const wrongRoot = await cli([
      'ucan',
      'verify',
      chain,
      '--audience',
      did['node'] as string,
      '--root',
      did['node'] as string,
    ]);
    expect(wrongRoot.code).toBe(1);
    expect(JSON.parse(wrongRoot.out.split('\n')[1] as string)).toMatchObject({
      reason: 'untrusted-root',
      link: 1,
    });
    const wrongAudience = await cli(
      ['ucan', 'verify', '-', '--audience', did['alice'] as string, '--root', did['root'] as string],
      chain,
    );
    expect(JSON.parse(wrongAudience.out.split('\n')[1] as string)).toMatchObject({
      reason: 'audience',
      link: 0,
    });
  });

  it('refuses to delegate with the wrong key or to widen', async () => {
    const { root } = await issueAndDelegate();
    const wrongKey = await cli([
      'ucan',
      'delegate',
      '--key',
      'node.key',
      '--proof',
      root,
      '--audience',
      did['node'] as string,
    ]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.err).toContain('cannot delegate');
    const widen = await cli([
      'ucan',
      'delegate',
      '--key',
      'alice.key',
      '--proof',
      root,
      '--audience',
      did['node'] as string,
      '--scope',
      'soul:write',
    ]);
    expect(widen.code).toBe(1);
    expect(widen.err).toContain('soul/write');
  });

  it('refuses to issue nothing or a malformed grant', async () => {
    const nothing = await cli(['ucan', 'issue', '--key', 'root.key', '--audience', did['alice'] as string]);
    expect(nothing.code).toBe(1);
    expect(nothing.err).toContain('nothing to grant');
    const badCaveat = await cli([
      'ucan',
      'issue',
      '--key',
      'root.key',
      '--audience',
      did['alice'] as string,
      '--all',
      '--caveat',
      '[1]',
    ]);
    expect(badCaveat.code).toBe(1);
    const json = await cli([
      'ucan',
      'issue',
      '--key',
      'root.key',
      '--audience',
      did['alice'] as string,
      '--all',
      '--no-expiry',
      '--caveat',
      '{"tenant":"acme"}',
      '--json',
    ]);
    expect(json.code, json.err).toBe(0);
    expect(JSON.parse(json.out).payload).toMatchObject({
      exp: null,
      cap: { 'agentese:*': { '*': [{ tenant: 'acme' }] } },
    });
  });
});
