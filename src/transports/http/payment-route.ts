/**
 * The HTTP 402 payment flow (seed 003 §6.3) on priced node routes: a route runs one verb for
 * a price. Without payment it answers `402 Payment Required` with a fresh PayChallenge in
 * `X-Payment-Required` (base64 JSON); with an `X-Payment` credential (base64 JSON of a
 * PayCredential: an EIP-712 receipt signed by the payer) it checks the credential against the
 * route's terms, has `micropayments.verify` spend it once, runs the verb, and answers 200 with
 * the verb's output and the receipt in `X-Payment-Response`.
 *
 * Every step goes through the runtime (the micropayments primitive must be registered on it):
 * challenges and spent receipts are events in the log. Params are checked against the verb's
 * input schema before any money moves; a verb that fails after payment answers its error
 * with the receipt still spent (pay-before-work, like a ticket; see the decisions file).
 *
 * Statuses: 200 the verb's output; 402 no or refused credential (`{message, challenge,
 * refusal?}`); 400 bad params or an undecodable credential; 401 a bad bearer credential
 * (the node's authentication still applies); otherwise the status of the verb's error code,
 * in the plain `{error: {code, message, details?}}` form.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, type ErrorData } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { decodeJsonText } from '../../core/bounded-json.js';
import { throwIfProblems, validateAgainstSchema } from '../../core/schema-validator.js';
import { capabilitySelector, isVerbName } from '../../core/verb-name.js';
import {
  checkAddress,
  decodePaymentHeader,
  encodePaymentHeader,
  type PaymentCurrency,
} from '../../primitives/micropayments/index.js';
import { fromMicros, toMicros } from '../../primitives/money.js';
import type { Principal } from '../../runtime/index.js';
import { runtimePrincipal, silentLogger, type FaceComponents } from '../face-components.js';
import { sendFaceError, toFaceError } from './face-errors.js';

/** The header of a 402 answer carrying the PayChallenge (base64 JSON). */
export const PAYMENT_REQUIRED_HEADER = 'x-payment-required';
/** The request header carrying the PayCredential (base64 JSON). */
export const PAYMENT_HEADER = 'x-payment';
/** The header of a paid answer carrying the accepted receipt (base64 JSON). */
export const PAYMENT_RESPONSE_HEADER = 'x-payment-response';
/** The face name in the invocation context of priced calls. */
export const PAYMENT_FACE = 'http-402';

declare module '../../runtime/context.js' {
  interface FaceNames {
    /** Priced calls of the payment route (HTTP 402). */
    readonly 'http-402': true;
  }
}

/** One priced route. */
export interface PricedRoute {
  /** The URL path (`/inference`); it is also the resource its challenges are bound to. */
  readonly path: string;
  /** The verb it runs. */
  readonly verb: string;
  /** The price in USDC (units, at most 6 decimals). */
  readonly priceUsdc: number;
  /** The price in points. @default 0 (points not accepted) */
  readonly pricePoints?: number;
  /** The HTTP methods: GET takes params from the query, POST from the JSON body. @default ['GET', 'POST'] */
  readonly methods?: readonly ('GET' | 'POST')[];
}

/** Options of {@link registerPaymentRoutes}. */
export interface PaymentRoutesInit {
  /** Who is paid (an EVM address). */
  readonly payeeAddress: string;
  /** The priced routes. */
  readonly routes: readonly PricedRoute[];
  /** How long a challenge may be paid, ms. @default the primitive's (5 min) */
  readonly challengeTtlMs?: number;
  /** The largest accepted body, bytes. @default 1048576 */
  readonly bodyLimit?: number;
}

interface Route {
  readonly path: string;
  readonly verb: string;
  readonly prices: Readonly<Record<PaymentCurrency, number>>;
  readonly methods: readonly ('GET' | 'POST')[];
  readonly priceUnits: { readonly priceUsdc: number; readonly pricePoints: number };
}

function checkRoute(r: PricedRoute): Route {
  if (typeof r.path !== 'string' || !r.path.startsWith('/')) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `a priced route path must start with "/", got ${JSON.stringify(r.path)}`,
    );
  }
  if (!isVerbName(r.verb)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `priced route ${r.path}: ${JSON.stringify(r.verb)} is not a verb name`,
    );
  }
  const pricePoints = r.pricePoints ?? 0;
  const prices = {
    USDC: toMicros(r.priceUsdc, `${r.path} priceUsdc`),
    points: toMicros(pricePoints, `${r.path} pricePoints`),
  };
  if (prices.USDC === 0 && prices.points === 0) {
    throw new PlexusError('INVALID_PARAMS', `priced route ${r.path} must cost something`);
  }
  return {
    path: r.path,
    verb: r.verb,
    prices,
    methods: r.methods ?? ['GET', 'POST'],
    priceUnits: { priceUsdc: r.priceUsdc, pricePoints },
  };
}

function priceText(route: Route): string {
  const parts: string[] = [];
  if (route.prices.USDC > 0) parts.push(`${fromMicros(route.prices.USDC)} USDC`);
  if (route.prices.points > 0) parts.push(`${fromMicros(route.prices.points)} points`);
  return parts.join(' or ');
}

function paramsOf(request: FastifyRequest): JsonValue {
  if (request.method === 'GET') return { ...(request.query as JsonObject) };
  const text = typeof request.body === 'string' ? request.body : '';
  // Bounded like every face: too deep or unrecordable is a 400, before anything is charged.
  return text.trim() === '' ? {} : (decodeJsonText(text, { what: 'the request body' }) as JsonValue);
}

/** A refusal by the route's own terms, before the primitive spends anything. */
function termsRefusal(
  route: Route,
  payee: string,
  credential: JsonObject,
): { code: string; reason: string } | undefined {
  const { payee: p, currency, amount } = credential;
  if (typeof p === 'string' && p.toLowerCase() !== payee.toLowerCase()) {
    return { code: 'payee_mismatch', reason: `this route is paid to ${payee}, not to ${p}` };
  }
  if (currency === 'USDC' || currency === 'points') {
    const price = route.prices[currency];
    if (price === 0)
      return { code: 'currency_not_accepted', reason: `this route does not accept ${currency}` };
    if (typeof amount === 'number' && amount !== fromMicros(price)) {
      return {
        code: 'amount_mismatch',
        reason: `this route costs ${priceText(route)}, the credential pays ${amount} ${currency}`,
      };
    }
  }
  return undefined;
}

/**
 * Registers the priced routes on `app` in their own scope (bodies read as text, errors in
 * the plain `{error}` form). The runtime of `components` must host the micropayments
 * primitive and the routes' verbs.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad payee, path, verb or price; fastify's errors
 *   when a path is already registered.
 * @example
 * await registerPaymentRoutes(app, components, {
 *   payeeAddress: '0x…', routes: [{ path: '/inference', verb: 'demo.infer', priceUsdc: 0.01 }],
 * });
 */
export async function registerPaymentRoutes(
  app: FastifyInstance,
  components: FaceComponents,
  init: PaymentRoutesInit,
): Promise<void> {
  const payee = checkAddress(init.payeeAddress, 'payeeAddress');
  const routes = init.routes.map(checkRoute);
  const bodyLimit = init.bodyLimit ?? 1_048_576;
  const logger = components.logger ?? silentLogger;
  const { runtime } = components;

  const call = async (
    request: FastifyRequest,
    principal: Principal,
    verb: string,
    data: JsonValue,
    extra: Partial<Envelope> = {},
    idempotencyKey: string = randomUUID(),
  ): Promise<Envelope> => {
    const envelope: Envelope = {
      id: randomUUID(),
      kind: 'request',
      from: principal.id,
      to: capabilitySelector(verb),
      verb,
      data,
      ...(principal.tenantId === undefined ? {} : { tenantId: principal.tenantId }),
      ...extra,
    };
    const transport: Record<string, string> = { remoteAddress: request.ip };
    const answer = await runtime.invoke(envelope, {
      face: PAYMENT_FACE,
      principal,
      transport,
      idempotencyKey,
    });
    return answer.envelope;
  };
  const must = async (...args: Parameters<typeof call>): Promise<JsonObject> => {
    const answer = await call(...args);
    if (answer.kind === 'error') throw PlexusError.fromData(answer.data as unknown as ErrorData);
    return answer.data as JsonObject;
  };

  /** Refuses params the verb would refuse, and a verb nobody offers, before any payment. */
  const precheck = (verb: string, params: JsonValue): void => {
    const card = runtime.agents.registry.byCapability(verb)[0];
    if (card === undefined) {
      throw new PlexusError('UNKNOWN_VERB', `no agent here offers the priced verb ${verb}`, {
        details: { verb },
      });
    }
    const schema =
      runtime.agents.registry.verbSpec(card.id, verb)?.input ??
      card.capabilities.find((c) => c.verb === verb)?.input;
    if (schema !== undefined) throwIfProblems(validateAgainstSchema(schema, params), `params of ${verb}`);
  };

  const paymentRequired = async (
    request: FastifyRequest,
    reply: FastifyReply,
    route: Route,
    principal: Principal,
    refusal?: { code: string; reason: string },
  ): Promise<FastifyReply> => {
    const challenge = await must(request, principal, 'micropayments.challenge', {
      ...route.priceUnits,
      payeeAddress: payee,
      resource: route.path,
      ...(init.challengeTtlMs === undefined ? {} : { ttlMs: init.challengeTtlMs }),
    });
    const message =
      refusal === undefined
        ? `payment required: ${route.path} costs ${priceText(route)}; sign the EIP-712 receipt for the challenge in X-Payment-Required and send the credential in X-Payment`
        : `payment refused (${refusal.code}): ${refusal.reason}; a new challenge is in X-Payment-Required`;
    const body: JsonObject = { message, challenge, ...(refusal === undefined ? {} : { refusal }) };
    return reply
      .code(402)
      .header(PAYMENT_REQUIRED_HEADER, encodePaymentHeader(challenge))
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(body));
  };

  const serve = async (route: Route, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const principal = runtimePrincipal(await components.auth.authenticate(request.headers.authorization));
    const params = paramsOf(request);
    precheck(route.verb, params);
    const header = request.headers[PAYMENT_HEADER];
    if (header === undefined || header === '') return paymentRequired(request, reply, route, principal);
    const credential = decodePaymentHeader(Array.isArray(header) ? (header[0] ?? '') : header, 'X-Payment');
    const refusal = termsRefusal(route, payee, credential);
    if (refusal !== undefined) return paymentRequired(request, reply, route, principal, refusal);
    const verdict = await must(request, principal, 'micropayments.verify', {
      credential,
      resource: route.path,
    });
    if (verdict['accepted'] !== true) {
      return paymentRequired(request, reply, route, principal, {
        code: typeof verdict['code'] === 'string' ? verdict['code'] : 'refused',
        reason: typeof verdict['reason'] === 'string' ? verdict['reason'] : 'the credential was refused',
      });
    }
    const receiptId = typeof verdict['receiptId'] === 'string' ? verdict['receiptId'] : randomUUID();
    const receipt: JsonObject = {
      receiptId,
      challengeId: verdict['challengeId'] ?? null,
      payer: verdict['payer'] ?? null,
      payee: verdict['payee'] ?? null,
      amount: verdict['amount'] ?? null,
      currency: verdict['currency'] ?? null,
    };
    reply.header(PAYMENT_RESPONSE_HEADER, encodePaymentHeader(receipt));
    const answer = await call(
      request,
      principal,
      route.verb,
      params,
      { extensions: { _x_payment: receipt } },
      `payment:${receiptId}`,
    );
    if (answer.kind === 'error') {
      return sendFaceError(reply, 'discovery', PlexusError.fromData(answer.data as unknown as ErrorData), {
        nodeId: components.nodeId,
      });
    }
    return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(answer.data));
  };

  await app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_request, body, parsed) => {
      parsed(null, body);
    });
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const refusal = toFaceError(error, bodyLimit);
      if (refusal.code === 'INTERNAL')
        logger.error({ err: error.message, url: request.url }, 'priced route failed');
      return sendFaceError(reply, 'discovery', refusal, { nodeId: components.nodeId });
    });
    for (const route of routes) {
      scope.route({
        method: [...route.methods],
        url: route.path,
        handler: (request, reply) => serve(route, request, reply),
      });
    }
    done();
  });
}
