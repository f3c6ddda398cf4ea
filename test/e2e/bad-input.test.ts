import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateKeyPair,
  identityFromPublicKey,
  issueToken,
  issueTokenForCli,
  readKeyFile,
  rpcDomain,
  signEnvelope,
} from '../../src/security/index.js';
import { openRpcSocket } from '../support/e2e-fixture.js';
import {
  built,
  cleanup,
  esrpRequest,
  get,
  post,
  resultOf,
  startNodeProcess,
  type NodeProcess,
} from './harness.js';

// Bad input on every face of a node with auth on and a 4 KiB body limit: each gets the
// face's own error, and the node keeps serving.
let node: NodeProcess;
let token: string;
let auth: Record<string, string>;
/** A peer node the node trusts (only trusted signers may call the peer route, issue 11 item 1). */
const peerKey = generateKeyPair();

beforeAll(async () => {
  expect(built(), 'run `npm run build` first').toBe(true);
  node = await startNodeProcess({
    flags: ['--demo'],
    config: `limits: { bodyLimitBytes: 4096 }\nauth: { trustedPeers: [${identityFromPublicKey(peerKey.publicKey).did}] }\n`,
  });
  token = (await issueTokenForCli({ keyFile: join(node.dataDir, 'node.key'), subject: 'tester' })).token;
  auth = { authorization: `Bearer ${token}` };
});

afterAll(cleanup);

async function expiredToken(): Promise<string> {
  const { key } = await readKeyFile(join(node.dataDir, 'node.key'));
  const hourAgo = Date.now() - 3_600_000;
  return (await issueToken({ key, subject: 'tester', ttl: 60, now: () => hourAgo })).token;
}

async function forgedToken(): Promise<string> {
  return (await issueToken({ key: generateKeyPair(), subject: 'tester' })).token;
}

const big = (): string => JSON.stringify(esrpRequest('echo.echo', { pad: 'x'.repeat(8000) }));

describe('the ESRP face', () => {
  it('refuses missing, expired and forged tokens with 401 and a challenge', async () => {
    for (const headers of [
      {},
      { authorization: `Bearer ${await expiredToken()}` },
      { authorization: `Bearer ${await forgedToken()}` },
    ]) {
      const r = await post(`${node.url}/v1/execute`, esrpRequest('echo.echo', {}), headers);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(r.body).toMatchObject({ status: 'failed', error: { details: { plexus_code: 'UNAUTHORIZED' } } });
    }
  });

  it('answers broken JSON, wrong types, an unknown verb and an oversized body in ESRP form', async () => {
    const broken = await post(`${node.url}/v1/execute`, '{"esrp_version": "1.0",', auth);
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({
      status: 'failed',
      error: { code: 'INVALID_INPUT_SCHEMA', details: { plexus_code: 'PARSE_ERROR' } },
    });
    const wrong = await post(
      `${node.url}/v1/execute`,
      { ...esrpRequest('echo.echo', {}), inputs: 'x' },
      auth,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('INVALID_INPUT_SCHEMA');
    const unknown = await post(`${node.url}/v1/execute`, esrpRequest('nope.verb', {}), auth);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details.plexus_code).toBe('UNKNOWN_VERB');
    const tooBig = await post(`${node.url}/v1/execute`, big(), auth);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('INVALID_INPUT_SIZE');
    const badInput = await post(
      `${node.url}/v1/execute`,
      esrpRequest('math.evaluate', { expression: 7 }),
      auth,
    );
    expect(badInput.status).toBe(400);
    expect(badInput.body.error.details.plexus_code).toBe('INVALID_PARAMS');
  });
});

describe('the Emergence face', () => {
  const help = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    id: randomUUID(),
    from: 'tester',
    to: 'math',
    verb: 'HELP',
    data: { expression: '1+1' },
    ...extra,
  });

  it('answers bad messages with ERROR and the matching status', async () => {
    const broken = await post(`${node.url}/emergence`, '{"id": ', auth);
    expect(broken.status).toBe(400);
    expect(broken.body.verb).toBe('ERROR');
    const unknownVerb = await post(`${node.url}/emergence`, help({ verb: 'DANCE' }), auth);
    expect(unknownVerb.status).toBe(501);
    expect(unknownVerb.body).toMatchObject({ verb: 'ERROR', data: { code: 501 } });
    const wrongType = await post(`${node.url}/emergence`, help({ id: 5 }), auth);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.data.code).toBe(400);
    const tooBig = await post(
      `${node.url}/emergence`,
      help({ data: { expression: '1'.repeat(8000) } }),
      auth,
    );
    expect(tooBig.status).toBe(413);
    const forged = await post(`${node.url}/emergence`, help(), {
      authorization: `Bearer ${await forgedToken()}`,
    });
    expect(forged.status).toBe(401);
    expect(forged.body.data.code).toBe(401);
  });
});

describe('the WebSocket JSON-RPC face', () => {
  it('refuses an upgrade without a valid token with HTTP 401', async () => {
    for (const headers of [{}, { authorization: `Bearer ${await forgedToken()}` }]) {
      const status = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`${node.url.replace(/^http/, 'ws')}/rpc`, { headers });
        ws.once('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.once('open', () => {
          ws.terminate();
          reject(new Error('the upgrade was accepted'));
        });
        ws.once('error', () => undefined);
      });
      expect(status).toBe(401);
    }
  });

  it('answers broken JSON, wrong params, an unknown method and an oversized message, and stays open', async () => {
    const ws = await openRpcSocket(node.url, auth);
    try {
      interface Reply {
        id: unknown;
        error?: { code: number };
        result?: unknown;
      }
      const next = (): Promise<Reply> =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            reject(new Error('no reply'));
          }, 15_000);
          ws.once('message', (data: Buffer) => {
            clearTimeout(timer);
            resolve(JSON.parse(data.toString('utf8')) as Reply);
          });
        });
      const ask = async (message: string): Promise<Reply> => {
        const reply = next();
        ws.send(message);
        return reply;
      };
      expect((await ask('{"jsonrpc":"2.0","id":1,')).error?.code).toBe(-32700);
      expect(
        (
          await ask(
            JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'math.evaluate', params: { expression: 5 } }),
          )
        ).error?.code,
      ).toBe(-32602);
      expect(
        (await ask(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'nope.verb', params: {} }))).error?.code,
      ).toBe(-32601);
      expect(
        (
          await ask(
            JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'echo.echo', params: { pad: 'x'.repeat(8000) } }),
          )
        ).error?.code,
      ).toBe(-32600);
      expect(
        await ask(
          JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'math.evaluate', params: { expression: '2+2' } }),
        ),
      ).toEqual({
        jsonrpc: '2.0',
        id: 5,
        result: { expression: '2+2', value: 4 },
      });
    } finally {
      ws.terminate();
    }
  });
});

describe('the discovery face', () => {
  it('answers an unknown agent with 404 and a forged token with 401', async () => {
    const missing = await get(`${node.url}/agents/ghost`, auth);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((await get(`${node.url}/agents`, { authorization: `Bearer ${await forgedToken()}` })).status).toBe(
      401,
    );
  });
});

describe('the peer route', () => {
  it('runs a signed envelope once and refuses it replayed', async () => {
    const request = {
      id: randomUUID(),
      kind: 'request',
      from: 'peer-test',
      to: 'echo',
      verb: 'echo.echo',
      data: { hop: 1 },
    };
    const signed = signEnvelope(request, { key: peerKey, domain: rpcDomain('echo.echo') });
    const first = await post(`${node.url}/v1/peer/invoke`, signed, auth);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ kind: 'response', data: { hop: 1 } });
    const replayed = await post(`${node.url}/v1/peer/invoke`, signed, auth);
    expect(replayed.status).toBe(401);
    expect(replayed.body).toMatchObject({ error: { details: { plexus_code: 'SIGNATURE_REPLAYED' } } });
    const broken = await post(`${node.url}/v1/peer/invoke`, '{"_v":2', auth);
    expect(broken.status).toBe(400);
    const wrongDomain = signEnvelope(request, { key: peerKey, domain: rpcDomain('math.evaluate') });
    expect((await post(`${node.url}/v1/peer/invoke`, wrongDomain, auth)).status).toBe(401);
  });
});

describe('after all that', () => {
  it('the node still serves', async () => {
    expect((await get(`${node.url}/healthz`)).status).toBe(200);
    const r = await post(
      `${node.url}/v1/execute`,
      esrpRequest('math.evaluate', { expression: '40+2' }),
      auth,
    );
    expect(r.status).toBe(200);
    expect(resultOf(r.body)).toEqual({ expression: '40+2', value: 42 });
    expect(node.child.exitCode).toBeNull();
  });
});
