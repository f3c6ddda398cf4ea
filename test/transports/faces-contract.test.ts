/**
 * The eight faces of a node pass the face contract (`face-contract.ts`): ESRP, Emergence,
 * discovery, health, the peer route, the 402 payment routes, WebSocket JSON-RPC, MCP and A2A.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { didKeyFromPublicKey, generateKeyPair, rpcDomain, signEnvelope } from '../../src/security/index.js';
import { discoveryFace } from '../../src/transports/http/discovery-face.js';
import { emergenceFace } from '../../src/transports/http/emergence-face.js';
import { esrpFace } from '../../src/transports/http/esrp-face.js';
import { healthFace } from '../../src/transports/http/health-face.js';
import { paymentFace } from '../../src/transports/http/payment-face.js';
import { peerFace } from '../../src/transports/peer/peer-face.js';
import { MCP_ERRORS } from '../../src/transports/mcp/mcp-errors.js';
import { mcpFace } from '../../src/transports/mcp/mcp-face.js';
import { a2aFace } from '../../src/transports/a2a/a2a-face.js';
import { wsJsonRpcFace } from '../../src/transports/ws-jsonrpc/ws-jsonrpc-face.js';
import { WHOAMI_VERB, runFaceContract, type FaceAnswer, type FaceTarget } from './face-contract.js';

async function http(
  url: string,
  method: 'GET' | 'POST',
  authorization: string,
  body?: string,
): Promise<FaceAnswer> {
  const res = await fetch(url, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
  return { status: res.status, text: await res.text() };
}

function json(answer: FaceAnswer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(answer.text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** The Plexus code of an ESRP failed response (also the peer route's refusal form). */
function esrpCode(answer: FaceAnswer): string | undefined {
  const body = json(answer);
  if (body?.['status'] !== 'failed' || body['esrp_version'] === undefined) return undefined;
  const code = field(field(body['error'], 'details'), 'plexus_code') ?? field(body['error'], 'code');
  return typeof code === 'string' ? code : undefined;
}

/** The `{error: {code, message}}` form of discovery, health and the payment routes. */
function plainCode(answer: FaceAnswer): string | undefined {
  const error = json(answer)?.['error'];
  const code = field(error, 'code');
  return typeof code === 'string' && typeof field(error, 'message') === 'string' ? code : undefined;
}

function esrpRequest(): Record<string, unknown> {
  return {
    esrp_version: '1.0',
    request_id: randomUUID(),
    timestamp: new Date().toISOString(),
    caller: { system: 'contract' },
    target: { service: 'contract', operation: 'whoami' },
    inputs: [{ name: 'text', content_type: 'text/plain', data: 'who', encoding: 'utf-8' }],
    params: {},
  };
}

/** Sends `text` on a WebSocket to `/rpc` and resolves with the first message back. */
function wsSend(target: FaceTarget, text: string, authorization: string): Promise<FaceAnswer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${target.port}/rpc`, { headers: { authorization } });
    ws.once('open', () => {
      ws.send(text);
    });
    ws.once('message', (data: Buffer) => {
      resolve({ status: 200, text: data.toString('utf8') });
      ws.close();
    });
    ws.once('unexpected-response', (_request, response) => {
      resolve({ status: response.statusCode ?? 0, text: '' });
    });
    ws.once('error', reject);
  });
}

runFaceContract({
  name: 'esrp',
  create: () => ({
    face: esrpFace(),
    send: (target, input, authorization) =>
      http(`${target.url}/v1/execute`, 'POST', authorization, input.text),
    errorCode: esrpCode,
    act: (target, authorization) =>
      http(`${target.url}/v1/execute`, 'POST', authorization, JSON.stringify(esrpRequest())),
  }),
});

runFaceContract({
  name: 'emergence',
  create: () => ({
    face: emergenceFace(),
    send: (target, input, authorization) =>
      http(`${target.url}/emergence`, 'POST', authorization, input.text),
    errorCode: (answer) => {
      const body = json(answer);
      const code = field(body?.['data'], 'code');
      return body?.['verb'] === 'ERROR' && typeof code === 'number' ? String(code) : undefined;
    },
    act: (target, authorization) =>
      http(
        `${target.url}/emergence`,
        'POST',
        authorization,
        JSON.stringify({
          id: randomUUID(),
          from: 'contract-caller',
          to: 'contract',
          verb: 'HELP',
          data: { verb: WHOAMI_VERB, params: {} },
        }),
      ),
  }),
});

runFaceContract({
  name: 'discovery',
  runsNoCalls: 'discovery reads the registry: it starts no job',
  create: () => ({
    face: discoveryFace(),
    // Discovery reads no body: bad input to its path is answered in its form all the same.
    send: (target, input, authorization) => http(`${target.url}/agents`, 'POST', authorization, input.text),
    errorCode: plainCode,
  }),
});

runFaceContract({
  name: 'health',
  runsNoCalls: 'the probes start no job',
  create: () => ({
    face: healthFace(),
    send: (target, input, authorization) => http(`${target.url}/readyz`, 'POST', authorization, input.text),
    errorCode: plainCode,
  }),
});

runFaceContract({
  name: 'peer',
  create: () => {
    const key = generateKeyPair();
    const signed = (claim: string | undefined): string =>
      JSON.stringify(
        signEnvelope(
          {
            id: randomUUID(),
            kind: 'request',
            from: 'did:example:caller',
            to: 'contract',
            verb: WHOAMI_VERB,
            data: {},
            ...(claim === undefined ? {} : { tenantId: claim }),
          },
          { key, domain: rpcDomain(WHOAMI_VERB) },
        ),
      );
    return {
      face: peerFace({ trustedPeers: [didKeyFromPublicKey(key.publicKey)] }),
      send: (target, input, authorization) =>
        http(`${target.url}/v1/peer/invoke`, 'POST', authorization, input.text),
      errorCode: esrpCode,
      act: (target, authorization, claim) =>
        http(`${target.url}/v1/peer/invoke`, 'POST', authorization, signed(claim)),
    };
  },
});

runFaceContract({
  name: 'http-402',
  create: () => ({
    face: paymentFace({
      payeeAddress: `0x${'ab'.repeat(20)}`,
      routes: [{ path: '/priced', verb: WHOAMI_VERB, priceUsdc: 0.01, methods: ['POST'] }],
    }),
    init: { primitives: ['micropayments'] },
    send: (target, input, authorization) => http(`${target.url}/priced`, 'POST', authorization, input.text),
    errorCode: plainCode,
    // Without a payment the route asks micropayments.challenge for one, as the caller.
    act: (target, authorization) => http(`${target.url}/priced`, 'POST', authorization, '{}'),
  }),
});

runFaceContract({
  name: 'hyperspace',
  create: () => ({
    face: wsJsonRpcFace(),
    send: (target, input, authorization) => wsSend(target, input.text, authorization),
    errorCode: (answer) => {
      const body = json(answer);
      const code = field(body?.['error'], 'code');
      return body?.['jsonrpc'] === '2.0' && typeof code === 'number' ? String(code) : undefined;
    },
    act: (target, authorization) =>
      wsSend(
        target,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: WHOAMI_VERB, params: {} }),
        authorization,
      ),
  }),
});

/** POSTs MCP messages to `/mcp` as the SDK client does. */
function mcpPost(
  target: FaceTarget,
  text: string,
  authorization: string,
  session?: string,
): Promise<Response> {
  return fetch(`${target.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...(session === undefined ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }),
    },
    body: text,
  });
}

runFaceContract({
  name: 'mcp',
  errorTable: MCP_ERRORS,
  create: () => ({
    face: mcpFace(),
    send: async (target, input, authorization) => {
      const res = await mcpPost(target, input.text, authorization);
      return { status: res.status, text: await res.text() };
    },
    errorCode: (answer) => {
      const body = json(answer);
      const code = field(body?.['error'], 'code');
      return body?.['jsonrpc'] === '2.0' && typeof code === 'number' ? String(code) : undefined;
    },
    // initialize, then call the contract's verb as the tool `Contract_agent.contract.whoami`
    act: async (target, authorization) => {
      const opened = await mcpPost(
        target,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'contract', version: '1' },
          },
        }),
        authorization,
      );
      const session = opened.headers.get('mcp-session-id') ?? '';
      const call = JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'Contract_agent.contract.whoami', arguments: {} },
      });
      const res = await mcpPost(target, call, authorization, session);
      return { status: res.status, text: await res.text() };
    },
  }),
});

/** POSTs an A2A v1.0 JSON-RPC request to `/a2a`. */
async function a2aPost(target: FaceTarget, text: string, authorization: string): Promise<FaceAnswer> {
  const res = await fetch(`${target.url}/a2a`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: text,
  });
  return { status: res.status, text: await res.text() };
}

runFaceContract({
  name: 'a2a',
  create: () => ({
    face: a2aFace(),
    send: (target, input, authorization) => a2aPost(target, input.text, authorization),
    errorCode: (answer) => {
      const body = json(answer);
      const code = field(body?.['error'], 'code');
      return body?.['jsonrpc'] === '2.0' && typeof code === 'number' ? String(code) : undefined;
    },
    // SendMessage naming the contract's verb in a data part; a claimed tenant goes in `params.tenant`
    act: (target, authorization, claim) =>
      a2aPost(
        target,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            ...(claim === undefined ? {} : { tenant: claim }),
            message: {
              messageId: randomUUID(),
              role: 'ROLE_USER',
              parts: [{ data: { verb: 'contract.whoami', input: {} } }],
            },
          },
        }),
        authorization,
      ),
  }),
});
