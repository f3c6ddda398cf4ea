/**
 * The HTTP 402 flow on a real fastify server (127.0.0.1, port 0) over a real runtime with the
 * micropayments primitive; the client pays with a viem wallet (local key, EIP-712).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../src/core/json.js';
import {
  decodePaymentHeader,
  encodePaymentHeader,
  micropaymentsPrimitive,
  type PayCredential,
} from '../../src/primitives/micropayments/index.js';
import type { Primitive } from '../../src/primitives/primitive.js';
import { createRuntime, type HandlerContext, type Runtime } from '../../src/runtime/index.js';
import { authenticator, envelopeVerifier, generateKeyPair } from '../../src/security/index.js';
import { memoryArtifactStore, memoryEventLog, type EventLog } from '../../src/store/index.js';
import type { FaceComponents } from '../../src/transports/face-components.js';
import {
  PAYMENT_REQUIRED_HEADER,
  PAYMENT_RESPONSE_HEADER,
  registerPaymentRoutes,
} from '../../src/transports/http/payment-route.js';
import { PAYEE, wallet } from '../primitives/micropayments/pay-harness.js';
import { agent, cap } from '../runtime/helpers.js';

interface Server {
  readonly base: string;
  readonly app: FastifyInstance;
  readonly log: EventLog;
  readonly runtime: Runtime;
  readonly pay: Primitive;
  readonly clock: { t: number };
  readonly seen: HandlerContext[];
  close(): Promise<void>;
}

const PROMPT_SCHEMA = {
  type: 'object',
  required: ['prompt'],
  properties: { prompt: { type: 'string' } },
};

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(auth: 'anonymous' | 'jwt' = 'anonymous'): Promise<Server> {
  const clock = { t: Date.now() };
  const seen: HandlerContext[] = [];
  const log = memoryEventLog();
  await log.start();
  const pay = micropaymentsPrimitive({ log, now: () => clock.t });
  await pay.start();
  const demo = agent(
    'demo',
    {
      'demo.infer': (input, ctx) => {
        seen.push(ctx);
        return { text: `echo: ${(input as { prompt: string }).prompt}` };
      },
      'demo.broken': (_input, ctx) => {
        seen.push(ctx);
        throw new PlexusError('UNAVAILABLE', 'the model server is down');
      },
    },
    { capabilities: [cap('demo.infer', PROMPT_SCHEMA), cap('demo.broken')] },
  );
  const runtime = createRuntime({ log, agents: [pay.agent, demo], nodeId: 'did:key:z6MkPayNode' });
  await runtime.start();
  const components: FaceComponents = {
    runtime,
    log,
    artifacts: memoryArtifactStore(),
    auth:
      auth === 'anonymous'
        ? authenticator({ allowAnonymous: true })
        : authenticator({ jwt: { issuerKeys: [generateKeyPair()] } }),
    verifier: envelopeVerifier(),
    nodeId: 'did:key:z6MkPayNode',
  };
  const app = Fastify({ logger: false });
  await registerPaymentRoutes(app, components, {
    payeeAddress: PAYEE,
    routes: [
      { path: '/inference', verb: 'demo.infer', priceUsdc: 0.01, pricePoints: 10 },
      { path: '/broken', verb: 'demo.broken', priceUsdc: 0.02, methods: ['POST'] },
    ],
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  server = {
    base: `http://127.0.0.1:${address.port}`,
    app,
    log,
    runtime,
    pay,
    clock,
    seen,
    async close() {
      await app.close();
      await runtime.stop({ drainMs: 0 });
      await pay.stop();
      await log.stop();
    },
  };
  return server;
}

async function post(
  s: Server,
  path: string,
  body: JsonValue,
  credential?: PayCredential | string,
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (credential !== undefined) {
    headers['x-payment'] =
      typeof credential === 'string' ? credential : encodePaymentHeader(credential as unknown as JsonObject);
  }
  return fetch(`${s.base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** The challenge of a 402 answer (header and body must agree). */
async function challengeOf(res: Response): Promise<{ challenge: JsonObject; body: JsonObject }> {
  expect(res.status).toBe(402);
  const header = res.headers.get(PAYMENT_REQUIRED_HEADER);
  expect(header).not.toBeNull();
  const challenge = decodePaymentHeader(header!, 'X-Payment-Required');
  const body = (await res.json()) as JsonObject;
  expect(body['challenge']).toEqual(challenge);
  return { challenge, body };
}

async function count(s: Server, type: string): Promise<number> {
  return (await s.log.read({ type })).length;
}

describe('HTTP 402 payment route', () => {
  it('answers 402 with a challenge, then 200 for a credential signed with viem, then refuses the replay', async () => {
    const s = await start();
    const { challenge, body } = await challengeOf(await post(s, '/inference', { prompt: 'hi' }));
    expect(challenge).toMatchObject({
      priceUsdc: 0.01,
      pricePoints: 10,
      payeeAddress: PAYEE,
      resource: '/inference',
    });
    expect(body['message']).toMatch(/costs 0.01 USDC or 10 points/);
    expect(s.seen).toHaveLength(0);

    const payer = wallet();
    const credential = await payer.pay(challenge);
    const paid = await post(s, '/inference', { prompt: 'hi' }, credential);
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ text: 'echo: hi' });
    const receipt = decodePaymentHeader(paid.headers.get(PAYMENT_RESPONSE_HEADER)!, 'X-Payment-Response');
    expect(receipt).toMatchObject({
      payer: payer.account.address,
      payee: PAYEE,
      amount: 0.01,
      currency: 'USDC',
      challengeId: challenge['challengeId'],
    });
    expect(receipt['receiptId']).toMatch(/^0x[0-9a-f]{64}$/);
    expect(s.seen).toHaveLength(1);
    expect(s.seen[0]!.envelope.extensions?.['_x_payment']).toEqual(receipt);

    const replay = await challengeOf(await post(s, '/inference', { prompt: 'hi' }, credential));
    expect(replay.body['refusal']).toMatchObject({ code: 'already_spent' });
    expect(replay.body['message']).toMatch(/^payment refused \(already_spent\)/);
    expect(replay.challenge['challengeId']).not.toBe(challenge['challengeId']);
    expect(s.seen).toHaveLength(1);
    expect(await count(s, 'micropayments.receipt_redeemed')).toBe(1);
  });

  it('takes GET params from the query and pays in points', async () => {
    const s = await start();
    const first = await fetch(`${s.base}/inference?prompt=hello`);
    const { challenge } = await challengeOf(first);
    const credential = await wallet().pay(challenge, 'points');
    const paid = await fetch(`${s.base}/inference?prompt=hello`, {
      headers: { 'x-payment': encodePaymentHeader(credential as unknown as JsonObject) },
    });
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ text: 'echo: hello' });
  });

  it('refuses a wrong amount, payee, resource, expired challenge or bad signature with a clear reason', async () => {
    const s = await start();
    const payer = wallet();
    const intruder = wallet();
    const fresh = async (): Promise<JsonObject> =>
      (await challengeOf(await post(s, '/inference', { prompt: 'x' }))).challenge;
    const refusal = async (credential: PayCredential): Promise<JsonObject> => {
      const { body } = await challengeOf(await post(s, '/inference', { prompt: 'x' }, credential));
      return body['refusal'] as JsonObject;
    };

    const c1 = await fresh();
    expect(await refusal(await payer.pay(c1, 'USDC', (r) => ({ ...r, amount: 1n })))).toMatchObject({
      code: 'amount_mismatch',
    });
    expect(
      await refusal(await payer.pay(c1, 'USDC', (r) => ({ ...r, payee: intruder.account.address }))),
    ).toMatchObject({ code: 'payee_mismatch' });
    const forged = { ...(await payer.pay(c1)), signature: (await intruder.pay(c1)).signature };
    const bad = await refusal(forged);
    expect(bad['code']).toBe('bad_signature');
    expect(bad['reason']).toMatch(/not by the payer/);

    // A cheap challenge a client made itself for this resource: the route's price still holds.
    const cheap = await s.runtime.invoke(
      {
        id: 'cheap',
        kind: 'request',
        from: 'x',
        to: 'capability:micropayments.challenge',
        verb: 'micropayments.challenge',
        data: { pricePoints: 0, priceUsdc: 0.000001, payeeAddress: PAYEE, resource: '/inference' },
      },
      { face: 'internal' },
    );
    expect(await refusal(await payer.pay(cheap.envelope.data as JsonObject))).toMatchObject({
      code: 'amount_mismatch',
    });
    // A challenge at the right price for another resource.
    const other = await s.runtime.invoke(
      {
        id: 'other',
        kind: 'request',
        from: 'x',
        to: 'capability:micropayments.challenge',
        verb: 'micropayments.challenge',
        data: { pricePoints: 10, priceUsdc: 0.01, payeeAddress: PAYEE, resource: '/elsewhere' },
      },
      { face: 'internal' },
    );
    expect(await refusal(await payer.pay(other.envelope.data as JsonObject))).toMatchObject({
      code: 'resource_mismatch',
    });

    const c2 = await fresh();
    const late = await payer.pay(c2);
    s.clock.t += 300_001;
    expect(await refusal(late)).toMatchObject({ code: 'expired' });

    expect(s.seen).toHaveLength(0);
    expect(await count(s, 'micropayments.receipt_redeemed')).toBe(0);
    // The first challenge was never spent by the refusals.
    s.clock.t -= 300_001;
    const ok = await post(s, '/inference', { prompt: 'x' }, await payer.pay(c1));
    expect(ok.status).toBe(200);
  });

  it('serves a credential presented concurrently once', async () => {
    const s = await start();
    const { challenge } = await challengeOf(await post(s, '/inference', { prompt: 'p' }));
    const credential = await wallet().pay(challenge);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post(s, '/inference', { prompt: 'p' }, credential)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 402, 402, 402, 402, 402, 402, 402]);
    expect(s.seen).toHaveLength(1);
  });

  it('refuses bad params and bad credentials with 400 before any money moves', async () => {
    const s = await start();
    const badParams = await post(s, '/inference', { prompt: 42 });
    expect(badParams.status).toBe(400);
    const body = (await badParams.json()) as {
      error: { code: string; details: { problems: { pointer: string }[] } };
    };
    expect(body.error.code).toBe('INVALID_PARAMS');
    expect(body.error.details.problems.map((p) => p.pointer)).toEqual(['/prompt']);
    const broken = await fetch(`${s.base}/inference`, { method: 'POST', body: '{"prompt":' });
    expect(broken.status).toBe(400);
    expect(await count(s, 'micropayments.challenge_issued')).toBe(0);

    const garbage = await post(s, '/inference', { prompt: 'x' }, 'not base64 at all!');
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { error: { message: string } }).error.message).toMatch(
      /X-Payment header/,
    );
    const { challenge } = await challengeOf(await post(s, '/inference', { prompt: 'x' }));
    const credential = await wallet().pay(challenge);
    const malformed = await post(s, '/inference', { prompt: 'x' }, { ...credential, signature: '0x00' });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(await malformed.json())).toMatch(/\/credential\/signature/);
    expect(s.seen).toHaveLength(0);
  });

  it('answers the verb’s failure after payment with the receipt in X-Payment-Response', async () => {
    const s = await start();
    const { challenge } = await challengeOf(await post(s, '/broken', {}));
    const res = await post(s, '/broken', {}, await wallet().pay(challenge));
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAVAILABLE');
    expect(res.headers.get(PAYMENT_RESPONSE_HEADER)).not.toBeNull();
    expect(await count(s, 'micropayments.receipt_redeemed')).toBe(1);
    expect((await fetch(`${s.base}/broken`)).status).toBe(404); // POST only
  });

  it('keeps the node’s bearer authentication', async () => {
    const s = await start('jwt');
    const res = await post(s, '/inference', { prompt: 'x' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await count(s, 'micropayments.challenge_issued')).toBe(0);
  });

  it('refuses bad options', async () => {
    const app = Fastify({ logger: false });
    const components = {} as FaceComponents;
    const route = { path: '/x', verb: 'demo.infer', priceUsdc: 0.01 };
    await expect(
      registerPaymentRoutes(app, components, { payeeAddress: '0x12', routes: [route] }),
    ).rejects.toThrow(/payeeAddress/);
    for (const bad of [
      { ...route, path: 'x' },
      { ...route, verb: 'Demo' },
      { ...route, priceUsdc: 0 },
      { ...route, priceUsdc: 0.0000001 },
    ]) {
      await expect(
        registerPaymentRoutes(app, components, { payeeAddress: PAYEE, routes: [bad] }),
      ).rejects.toThrow(PlexusError);
    }
    await app.close();
  });
});
