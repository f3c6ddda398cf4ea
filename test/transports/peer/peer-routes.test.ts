import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import {
  generateApiKey,
  generateKeyPair,
  identityFromPublicKey,
  rpcDomain,
  signEnvelope,
  toBase64Url,
  type Ed25519KeyPair,
} from '../../../src/security/index.js';
import { agent, post, request, startNode, type TestNode } from './helpers.js';

const nodes: TestNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

async function node(init: Parameters<typeof startNode>[0] = {}): Promise<TestNode> {
  const n = await startNode({
    agents: [
      agent('echo', {
        'echo.echo': (input) => input,
        'echo.fail': () => {
          throw new PlexusError('PRECONDITION_FAILED', 'the guard did not hold');
        },
      }),
    ],
    ...init,
  });
  nodes.push(n);
  return n;
}

function signed(key: Ed25519KeyPair, d: JsonValue, verb = 'echo.echo') {
  return signEnvelope(d, { key, domain: rpcDomain(verb) });
}

describe('registerPeerRoutes', () => {
  it('runs a signed request and answers 200 with the answer envelope', async () => {
    const n = await node();
    const req = request('echo.echo', { text: 'hi' }, 'echo');
    const res = await post(n.url, signed(generateKeyPair(), req as unknown as JsonValue));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: req.id, kind: 'response', data: { text: 'hi' }, to: req.from });
  });

  it('answers a failing verb with an error envelope carrying the Plexus code', async () => {
    const n = await node();
    const req = request('echo.fail', null, 'echo');
    const res = await post(n.url, signed(generateKeyPair(), req as unknown as JsonValue, 'echo.fail'));
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('error');
    expect(res.body.data.code).toBe('PRECONDITION_FAILED');
  });

  it('answers an unknown verb with an error envelope (the runtime answered)', async () => {
    const n = await node();
    const req = request('nobody.here', null);
    const res = await post(n.url, signed(generateKeyPair(), req as unknown as JsonValue, 'nobody.here'));
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('error');
    expect(res.body.data.code).toBe('UNKNOWN_VERB');
  });

  it('refuses a replayed envelope with 401 SIGNATURE_REPLAYED and keeps serving', async () => {
    const n = await node();
    const body = signed(generateKeyPair(), request('echo.echo', 1, 'echo') as unknown as JsonValue);
    expect((await post(n.url, body)).status).toBe(200);
    const again = await post(n.url, body);
    expect(again.status).toBe(401);
    expect(again.body.error.details.plexus_code).toBe('SIGNATURE_REPLAYED');
    const fresh = signed(generateKeyPair(), request('echo.echo', 2, 'echo') as unknown as JsonValue);
    expect((await post(n.url, fresh)).body.data).toBe(2);
  });

  it('refuses a forged signature with 401 SIGNATURE_INVALID', async () => {
    const n = await node();
    const body = signed(generateKeyPair(), request('echo.echo', 'a', 'echo') as unknown as JsonValue);
    const forged = { ...body, d: { ...(body.d as object), data: 'b' } };
    const res = await post(n.url, forged);
    expect(res.status).toBe(401);
    expect(res.body.error.details.plexus_code).toBe('SIGNATURE_INVALID');
  });

  it('refuses a signature made by another key than pk names (401 SIGNER_MISMATCH)', async () => {
    const n = await node();
    const body = signed(generateKeyPair(), request('echo.echo', 'a', 'echo') as unknown as JsonValue);
    const other = identityFromPublicKey(generateKeyPair().publicKey);
    const res = await post(n.url, { ...body, pk: other.publicKeyBase64Url });
    expect(res.status).toBe(401);
    expect(res.body.error.details.plexus_code).toBe('SIGNER_MISMATCH');
  });

  it('refuses an envelope signed for another verb (401)', async () => {
    const n = await node();
    const req = request('echo.echo', 'a', 'echo');
    const body = signEnvelope(req as unknown as JsonValue, {
      key: generateKeyPair(),
      domain: rpcDomain('echo.fail'),
    });
    const res = await post(n.url, body);
    expect(res.status).toBe(401);
    expect(res.body.error.details.plexus_code).toBe('SIGNATURE_DOMAIN_MISMATCH');
  });

  it('refuses an expired signature (401 SIGNATURE_EXPIRED)', async () => {
    const n = await node();
    const req = request('echo.echo', 'a', 'echo') as unknown as JsonValue;
    const body = signEnvelope(req, {
      key: generateKeyPair(),
      domain: rpcDomain('echo.echo'),
      now: () => Date.now() - 3_600_000,
    });
    const res = await post(n.url, body);
    expect(res.status).toBe(401);
    expect(res.body.error.details.plexus_code).toBe('SIGNATURE_EXPIRED');
  });

  it('refuses an untrusted signer with 403 when trustedPeers is set, and admits a trusted one', async () => {
    const trustedKey = generateKeyPair();
    const trustedDid = identityFromPublicKey(trustedKey.publicKey).did;
    const n = await node({ routes: { trustedPeers: [trustedDid] } });
    const stranger = await post(
      n.url,
      signed(generateKeyPair(), request('echo.echo', 1, 'echo') as unknown as JsonValue),
    );
    expect(stranger.status).toBe(403);
    expect(stranger.body.error.details.plexus_code).toBe('FORBIDDEN');
    const friend = await post(
      n.url,
      signed(trustedKey, request('echo.echo', 1, 'echo') as unknown as JsonValue),
    );
    expect(friend.status).toBe(200);
    expect(friend.body.data).toBe(1);
  });

  it('accepts trusted peers named by PeerId and signing with their PeerId', async () => {
    const key = generateKeyPair();
    const { peerId } = identityFromPublicKey(key.publicKey);
    const n = await node({ routes: { trustedPeers: [peerId] } });
    const body = signEnvelope(request('echo.echo', 7, 'echo') as unknown as JsonValue, {
      key,
      domain: rpcDomain('echo.echo'),
      from: 'peerId',
    });
    expect((await post(n.url, body)).body.data).toBe(7);
  });

  it('admits nobody with an empty trust list', async () => {
    const n = await node({ routes: { trustedPeers: [] } });
    const res = await post(
      n.url,
      signed(generateKeyPair(), request('echo.echo', 1, 'echo') as unknown as JsonValue),
    );
    expect(res.status).toBe(403);
  });

  it('rejects a trust list entry that names no key', async () => {
    await expect(node({ routes: { trustedPeers: ['not-a-did'] } })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
  });

  it('without a trust list, refuses every signer with 403 when the node requires auth, bearer or not (issue 11)', async () => {
    const apiKey = generateApiKey();
    const n = await node({ auth: { apiKeys: { keys: [{ hash: apiKey.hash, subject: 'node-2' }] } } });
    const bare = await post(
      n.url,
      signed(generateKeyPair(), request('echo.echo', 1, 'echo') as unknown as JsonValue),
    );
    expect(bare.status).toBe(403);
    expect(bare.body.error.details.plexus_code).toBe('FORBIDDEN');
    const withKey = await post(
      n.url,
      signed(generateKeyPair(), request('echo.echo', 2, 'echo') as unknown as JsonValue),
      { authorization: `Bearer ${apiKey.key}` },
    );
    expect(withKey.status).toBe(403);
    expect(withKey.body).toMatchObject({
      status: 'failed',
      error: { code: 'INVALID_INPUT_SEMANTIC', details: { plexus_code: 'FORBIDDEN' } },
    });
  });

  it('answers broken JSON with 400 PARSE_ERROR', async () => {
    const n = await node();
    const res = await post(n.url, '{"_v": 2,');
    expect(res.status).toBe(400);
    expect(res.body.error.details.plexus_code).toBe('PARSE_ERROR');
  });

  it('answers an unsigned body with 400 MALFORMED_ENVELOPE naming the field', async () => {
    const n = await node();
    const res = await post(n.url, request('echo.echo', 1, 'echo'));
    expect(res.status).toBe(400);
    expect(res.body.error.details.plexus_code).toBe('MALFORMED_ENVELOPE');
    expect(res.body.error.details.field).toBeTypeOf('string');
  });

  it('answers a payload that is no request envelope with 400 MALFORMED_ENVELOPE', async () => {
    const n = await node();
    const body = signEnvelope([1, 2, 3], { key: generateKeyPair(), domain: rpcDomain('echo.echo') });
    const res = await post(n.url, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ details: { plexus_code: 'MALFORMED_ENVELOPE', field: 'd' } });
  });

  it('answers an invalid core envelope inside a valid signature with an INVALID_REQUEST answer', async () => {
    const n = await node();
    const body = signEnvelope(
      { verb: 'echo.echo', kind: 'request' },
      { key: generateKeyPair(), domain: rpcDomain('echo.echo') },
    );
    const res = await post(n.url, body);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('error');
    expect(res.body.data.code).toBe('INVALID_REQUEST');
  });

  it('answers an oversized body with 413 INPUT_TOO_LARGE', async () => {
    const n = await node({ routes: { bodyLimit: 1024 } });
    const body = signed(
      generateKeyPair(),
      request('echo.echo', 'x'.repeat(4096), 'echo') as unknown as JsonValue,
    );
    const res = await post(n.url, body);
    expect(res.status).toBe(413);
    expect(res.body.error.details.plexus_code).toBe('INPUT_TOO_LARGE');
  });

  it('answers a bad timeout header with 400 INVALID_PARAMS and honours a good one', async () => {
    const n = await node();
    const bad = await post(
      n.url,
      signed(generateKeyPair(), request('echo.echo', 1, 'echo') as unknown as JsonValue),
      {
        'plexus-timeout-ms': '-5',
      },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.plexus_code).toBe('INVALID_PARAMS');
    const good = await post(
      n.url,
      signed(generateKeyPair(), request('echo.echo', 1, 'echo') as unknown as JsonValue),
      {
        'plexus-timeout-ms': '5000',
      },
    );
    expect(good.status).toBe(200);
  });

  it('answers 503 with the answer envelope when the runtime refuses before any job (stopping)', async () => {
    const n = await node();
    await n.runtime.stop({ drainMs: 0 });
    const req = request('echo.echo', 1, 'echo');
    const res = await post(n.url, signed(generateKeyPair(), req as unknown as JsonValue));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      id: req.id,
      kind: 'error',
      data: { code: 'UNAVAILABLE', retryable: true },
    });
  });

  it('runs the request with the signer as principal of kind peer', async () => {
    const key = generateKeyPair();
    const did = identityFromPublicKey(key.publicKey).did;
    let seen: unknown;
    const n = await node({
      agents: [
        agent('who', {
          'who.ami': (_input, context) => {
            seen = context.principal;
            return null;
          },
        }),
      ],
    });
    await post(n.url, signed(key, request('who.ami', null, 'who') as unknown as JsonValue, 'who.ami'));
    expect(seen).toEqual({ id: did, kind: 'peer' });
  });

  it('refuses an envelope whose nonce was changed (401 SIGNATURE_INVALID)', async () => {
    const n = await node();
    const body = signed(generateKeyPair(), request('echo.echo', 1, 'echo') as unknown as JsonValue);
    const res = await post(n.url, { ...body, nonce: toBase64Url(new Uint8Array(16)) });
    expect(res.status).toBe(401);
    expect(res.body.error.details.plexus_code).toBe('SIGNATURE_INVALID');
  });
});
