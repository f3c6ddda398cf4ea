import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const fixtures = resolve(fileURLToPath(import.meta.url), '../../fixtures');
const esrp = join(fixtures, 'esrp-v1');
const RFC8032_TEST1_SEED = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';

describe('plexus canonicalize', () => {
  it.each(readdirSync(join(esrp, 'requests')))(
    'reproduces the ESRP golden canonical bytes of %s',
    async (name) => {
      const run = await runCli(['canonicalize', '--profile', 'esrp', join(esrp, 'requests', name)]);
      expect(run.code).toBe(0);
      expect(run.out).toBe(readFileSync(join(esrp, 'canonical', name), 'utf8'));
    },
  );

  it('writes RFC 8785 form by default, from stdin, with no trailing newline', async () => {
    const run = await runCli(['canonicalize'], '{ "b": 1e3, "a": [true, null, "\\u00e9"] }\n');
    expect(run).toEqual({ code: 0, out: '{"a":[true,null,"é"],"b":1000}', err: '' });
    expect((await runCli(['canonicalize', '-'], '[1]')).out).toBe('[1]');
  });

  it('refuses a float under the esrp profile, naming where it is', async () => {
    const run = await runCli(['canonicalize', '--profile', 'esrp'], '{"a":{"b":56.0}}');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/\/a\/b/);
    expect(run.err).not.toMatch(/\n\s+at /);
  });

  it('reports broken JSON with a line and column and exit 1', async () => {
    const run = await runCli(['canonicalize'], '{\n  "a": }');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^plexus: invalid JSON at line 2, column 8/);
  });

  it('rejects an unknown profile', async () => {
    const run = await runCli(['canonicalize', '--profile', 'xml'], '{}');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/xml/);
  });
});

describe('plexus hash', () => {
  it.each(readdirSync(join(esrp, 'requests')))('prints the golden SHA-256 of %s', async (name) => {
    const run = await runCli(['hash', '--profile', 'esrp', join(esrp, 'requests', name)]);
    const expected = readFileSync(join(esrp, 'canonical', name.replace('.json', '.sha256')), 'utf8').trim();
    expect(run).toEqual({ code: 0, out: `${expected}\n`, err: '' });
  });

  it('prints the payload hash with --payload, which ignores fields outside target, inputs and params', async () => {
    const text = readFileSync(join(esrp, 'requests', 'simple_tts.json'), 'utf8');
    const a = await runCli(['hash', '--payload'], text);
    const request = JSON.parse(text) as Record<string, unknown>;
    request.request_id = '550e8400-e29b-41d4-a716-4466554400ff';
    const b = await runCli(['hash', '--payload'], JSON.stringify(request));
    expect(a.out).toMatch(/^[0-9a-f]{64}\n$/);
    expect(b.out).toBe(a.out);
    request.params = { voice: 'other' };
    expect((await runCli(['hash', '--payload'], JSON.stringify(request))).out).not.toBe(a.out);
  });

  it('hashes the jcs form by default', async () => {
    const run = await runCli(['hash'], '{"b":2,"a":1}');
    // SHA-256 of '{"a":1,"b":2}'
    expect(run.out).toBe('43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777\n');
  });
});

describe('plexus validate', () => {
  it.each([
    ...readdirSync(join(esrp, 'requests')).map((f) => ['requests', f] as const),
    ...readdirSync(join(esrp, 'responses')).map((f) => ['responses', f] as const),
  ])('accepts the ESRP fixture %s/%s', async (dir, name) => {
    const run = await runCli(['validate', join(esrp, dir, name)]);
    expect(run.out).toBe(`valid esrp-${dir === 'requests' ? 'request' : 'response'}\n`);
    expect(run.code).toBe(0);
  });

  it('prints every problem with its pointer and exits 1', async () => {
    const run = await runCli(
      ['validate'],
      '{"id":"x","from":"a","to":"b","verb":"help","data":{},"extra":1}',
    );
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^invalid emergence: 3 problem/);
    expect(run.out).toMatch(/\/extra: /);
    expect(run.out).toMatch(/\/id: /);
    expect(run.out).toMatch(/\/verb: /);
  });

  it('honours --format and validates JSON-RPC batches', async () => {
    const batch =
      '[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1},{"jsonrpc":"1.0","method":"x","id":2}]';
    const run = await runCli(['validate', '--format', 'jsonrpc'], batch);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/\/1\/jsonrpc/);
    const ok = await runCli(
      ['validate', '--format', 'jsonrpc'],
      '{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}',
    );
    expect(ok).toEqual({ code: 0, out: 'valid jsonrpc\n', err: '' });
  });

  it('judges ESRP numbers on their source text', async () => {
    const text = readFileSync(join(esrp, 'requests', 'simple_tts.json'), 'utf8').replace(
      '"voice"',
      '"speed": 1.0, "voice"',
    );
    const run = await runCli(['validate'], text);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/\/params\/speed/);
  });

  it('asks for --format when it cannot tell', async () => {
    const run = await runCli(['validate'], '{"hello":"world"}');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/--format/);
  });

  it('says which file it cannot read', async () => {
    const run = await runCli(['validate', 'no-such-file.json']);
    expect(run).toMatchObject({ code: 1, out: '' });
    expect(run.err).toBe('plexus: cannot read no-such-file.json: no such file\n');
  });
});

describe('plexus keys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-keys-'));

  it('generates a key file with mode 0600 from a seed, and shows it', async () => {
    const gen = await runCli(
      ['keys', 'generate', '--seed-hex', RFC8032_TEST1_SEED, '--out', 'k.json'],
      '',
      dir,
    );
    expect(gen.code).toBe(0);
    expect(statSync(join(dir, 'k.json')).mode & 0o777).toBe(0o600);
    const show = await runCli(['keys', 'show', join(dir, 'k.json')]);
    expect(show.code).toBe(0);
    const lines = show.out.trim().split('\n');
    expect(lines[0]).toMatch(/^did did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/);
    expect(lines[1]).toMatch(/^peerId 12D3KooW[1-9A-HJ-NP-Za-km-z]+$/);
    // RFC 8032 test 1 public key d75a98…511a, base64url
    expect(lines[2]).toBe(
      `publicKey ${Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex').toString('base64url')}`,
    );
  });

  it('refuses to overwrite a key file', async () => {
    const again = await runCli(['keys', 'generate', '--out', 'k.json'], '', dir);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/k\.json/);
  });

  it('makes a different random key each time', async () => {
    const a = await runCli(['keys', 'generate']);
    const b = await runCli(['keys', 'generate']);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.out).did).not.toBe(JSON.parse(b.out).did);
  });

  it('rejects a malformed seed and a malformed key file', async () => {
    const bad = await runCli(['keys', 'generate', '--seed-hex', 'abc']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/64 hexadecimal/);
    writeFileSync(join(dir, 'broken.json'), '{"format":"plexus-ed25519-key"}', { mode: 0o600 });
    const show = await runCli(['keys', 'show', join(dir, 'broken.json')]);
    expect(show.code).toBe(1);
    expect(show.err).toMatch(/^plexus: /);
  });
});

describe('plexus sign and verify', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-sign-'));
  const key = join(dir, 'k.json');

  async function signed(payload: string, domain = 'plexus/rpc/echo'): Promise<Record<string, unknown>> {
    if ((await runCli(['keys', 'show', key])).code !== 0) await runCli(['keys', 'generate', '--out', key]);
    const run = await runCli(['sign', '--key', key, '--domain', domain], payload);
    expect(run.code).toBe(0);
    return JSON.parse(run.out) as Record<string, unknown>;
  }

  it('signs a document whose d is the input, and verifies it', async () => {
    const env = await signed('{"hello":"mesh"}');
    expect(env.d).toEqual({ hello: 'mesh' });
    expect(env._v).toBe(2);
    const run = await runCli(['verify'], JSON.stringify(env));
    expect(run).toEqual({ code: 0, out: `ok ${String(env.from)}\n`, err: '' });
  });

  it('names the reason a changed payload, another domain or a bad field fails', async () => {
    const env = await signed('{"hello":"mesh"}');
    const changed = await runCli(['verify'], JSON.stringify({ ...env, d: { hello: 'MESH' } }));
    expect(changed.code).toBe(1);
    expect(changed.out).toMatch(/SIGNATURE_INVALID/);
    const other = await runCli(['verify', '--domain', 'hyperspace/tasks/x'], JSON.stringify(env));
    expect(other.out).toMatch(/SIGNATURE_DOMAIN_MISMATCH/);
    const malformed = await runCli(['verify'], JSON.stringify({ ...env, nonce: 42 }));
    expect(malformed.out).toMatch(/MALFORMED_ENVELOPE/);
  });

  it('asks for --domain when the envelope does not carry one', async () => {
    const env = await signed('{}');
    delete env.dom;
    const run = await runCli(['verify'], JSON.stringify(env));
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/--domain/);
  });

  it('requires --key and --domain to sign', async () => {
    const run = await runCli(['sign'], '{}');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/--key/);
  });
});

describe('plexus (the command)', () => {
  it('prints help and exits 0', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const cmd of ['validate', 'canonicalize', 'hash', 'keys', 'sign', 'verify'])
      expect(run.out).toContain(cmd);
  });

  it('exits 1 on an unknown command without a stack trace', async () => {
    const run = await runCli(['frobnicate']);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/unknown command/);
    expect(run.err).not.toMatch(/\n\s+at /);
  });
});

describe('plexus demo', () => {
  it('tours identity, faces, signatures and hashes with the real components', async () => {
    const run = await runCli(['demo']);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/did {5}did:key:z6Mk/);
    expect(run.out).toMatch(/peerId {2}12D3KooW/);
    expect(run.out).toMatch(/"schemaVersion":"1.0"/);
    expect(run.out).toMatch(/"jsonrpc":"2.0","method":"HELP"/);
    expect(run.out).toMatch(/as sent: +accepted/);
    expect(run.out).toMatch(/replay\): +refused: SIGNATURE_REPLAYED/);
    expect(run.out).toMatch(/payload changed: +refused: SIGNATURE_INVALID/);
    expect(run.out).toMatch(/on a topic: +refused: SIGNATURE_DOMAIN_MISMATCH/);
    expect(run.out).toMatch(/same, new id +([0-9a-f]{64}) +\(same: a duplicate/);
  });
});
