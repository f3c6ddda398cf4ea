import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { generateKeyPair, issueToken } from '../../../src/security/index.js';
import { exchange, rawSocket, startNode, type RawSocket, type TestNode } from './helpers.js';

interface UpgradeAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Sends a bare WebSocket upgrade request and returns the HTTP answer when it is not a 101. */
function upgrade(node: TestNode, path: string, headers: Record<string, string> = {}): Promise<UpgradeAnswer> {
  const url = new URL(node.base.replace('ws:', 'http:'));
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version': '13',
        ...headers,
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

const ECHO = '{"jsonrpc":"2.0","method":"demo.echo","params":["ok"],"id":1}';
const ECHOED = { jsonrpc: '2.0', result: ['ok'], id: 1 };

describe('attachWsJsonRpc: authentication at the upgrade (D14)', () => {
  let node: TestNode | undefined;
  let socket: RawSocket | undefined;
  afterEach(async () => {
    await socket?.close();
    socket = undefined;
    await node?.close();
    node = undefined;
  });

  it('refuses an upgrade without a credential with HTTP 401 and a bare Bearer challenge', async () => {
    node = await startNode();
    const answer = await upgrade(node, '/');
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="plexus"');
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { code: 'UNAUTHORIZED', retryable: false, details: { reason: 'missing' } },
    });
    await expect(rawSocket(`${node.base}/`, undefined)).rejects.toThrow('upgrade refused: 401');
  });

  it('refuses a forged, malformed or foreign token with 401 and error="invalid_token"', async () => {
    node = await startNode();
    const [head = '', payload = ''] = node.token.split('.');
    const forged = `${head}.${payload}.${'A'.repeat(86)}`;
    const foreign = (await issueToken({ key: generateKeyPair(), subject: 'x' })).token;
    for (const token of [forged, 'not-a-token', foreign, 'plx_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const answer = await upgrade(node, '/', { Authorization: `Bearer ${token}` });
      expect(answer.status, token).toBe(401);
      expect(answer.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    const basic = await upgrade(node, '/', { Authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(401);
  });

  it('accepts a node JWT in the Authorization header', async () => {
    node = await startNode();
    socket = await rawSocket(`${node.base}/`, node.token);
    expect(socket.ws.protocol).toBe('jsonrpc');
    expect(await exchange(socket, ECHO)).toEqual(ECHOED);
  });

  it('accepts an API key, on /rpc as well as /', async () => {
    node = await startNode();
    socket = await rawSocket(`${node.base}/rpc`, node.apiKey);
    expect(await exchange(socket, ECHO)).toEqual(ECHOED);
  });

  it('accepts the token as ?access_token= or ?token= (browsers cannot set headers)', async () => {
    node = await startNode();
    for (const name of ['access_token', 'token']) {
      socket = await rawSocket(`${node.base}/?${name}=${encodeURIComponent(node.token)}`, undefined);
      expect(await exchange(socket, ECHO)).toEqual(ECHOED);
      await socket.close();
    }
    const bad = await upgrade(node, '/rpc?token=nope');
    expect(bad.status).toBe(401);
  });

  it('accepts the token as a plexus.bearer.<token> subprotocol and selects jsonrpc, never the token', async () => {
    node = await startNode();
    const client = new WebSocket(`${node.base}/`, ['jsonrpc', `plexus.bearer.${node.token}`]);
    await new Promise<void>((resolve, reject) => {
      client.once('open', () => {
        resolve();
      });
      client.once('error', reject);
    });
    expect(client.protocol).toBe('jsonrpc');
    const answer = new Promise<string>((resolve) =>
      client.once('message', (m: Buffer) => {
        resolve(m.toString('utf8'));
      }),
    );
    client.send(ECHO);
    expect(JSON.parse(await answer)).toEqual(ECHOED);
    client.close();
  });

  it('prefers the Authorization header over the other places', async () => {
    node = await startNode();
    const answer = await upgrade(node, `/?token=${node.token}`, { Authorization: 'Bearer nope' });
    expect(answer.status).toBe(401);
  });

  it('lets anonymous callers in when the authenticator allows it (dev mode)', async () => {
    node = await startNode({ allowAnonymous: true });
    socket = await rawSocket(`${node.base}/`, undefined);
    expect(await exchange(socket, ECHO)).toEqual(ECHOED);
  });

  it('closes a connection with 1008 once its token is revoked', async () => {
    node = await startNode();
    socket = await rawSocket(`${node.base}/`, node.token);
    expect(await exchange(socket, ECHO)).toEqual(ECHOED);
    node.auth.revoke(node.tokenId);
    socket.send(ECHO);
    expect(await socket.closed).toBe(1008);
    expect((await upgrade(node, '/', { Authorization: `Bearer ${node.token}` })).status).toBe(401);
  });

  it('closes a connection with 1008 once its token has expired', async () => {
    let now = Date.now();
    node = await startNode({ face: { now: () => now } });
    socket = await rawSocket(`${node.base}/`, node.token);
    expect(await exchange(socket, ECHO)).toEqual(ECHOED);
    now += 2 * 3600 * 1000;
    socket.send(ECHO);
    expect(await socket.closed).toBe(1008);
  });
});

describe('attachWsJsonRpc: paths', () => {
  let node: TestNode | undefined;
  afterEach(async () => {
    await node?.close();
    node = undefined;
  });

  it('refuses other paths with 404 when it is the only upgrade listener', async () => {
    node = await startNode();
    const answer = await upgrade(node, '/elsewhere', { Authorization: `Bearer ${node.token}` });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('leaves other paths to other upgrade listeners', async () => {
    const seen: string[] = [];
    node = await startNode({
      beforeAttach: (server) =>
        server.on('upgrade', (req, socket) => {
          if (req.url === '/other') {
            seen.push(req.url);
            socket.end("HTTP/1.1 418 I'm a Teapot\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
          }
        }),
    });
    expect((await upgrade(node, '/other')).status).toBe(418);
    expect(seen).toEqual(['/other']);
    const s = await rawSocket(`${node.base}/rpc`, node.token);
    expect(await exchange(s, ECHO)).toEqual(ECHOED);
    await s.close();
  });

  it('refuses other paths with 404 when exclusive, whatever else listens', async () => {
    node = await startNode({
      face: { exclusive: true },
      beforeAttach: (server) => server.on('upgrade', () => undefined),
    });
    expect((await upgrade(node, '/other')).status).toBe(404);
  });
});
