/**
 * Agents that announced themselves by HELLO with an endpoint (`_x_endpoint`, issue 11 item 4)
 * are reachable: a request for one is POSTed to that endpoint as an Emergence HELP, and its
 * DONE or ERROR comes back as the answer (seed 000 §3, DESIGN D4).
 *
 * - The endpoint is an `https` URL; `http` only on a loopback host (D14).
 * - The HELP reuses the request's `id` when it is a UUID v4 (a HELP received on the Emergence
 *   face always is), else one made for the call; every retry sends the same `id`.
 * - Retries (D4): up to 3, after 0.5 / 1 / 2 s with jitter, on a timed-out attempt (30 s by
 *   default, seed 000 §3) and on HTTP 429 / 502 / 503 / 504 only. A connection refused, a
 *   4xx or an unreadable answer is not retried.
 * - A retryable status with an ERROR body is retried too; when the retries run out, that
 *   ERROR is the answer.
 * - DONE → a `response` envelope whose data is `data.result`; ERROR → an `error` envelope
 *   with the Plexus error it maps to (`emergenceErrorToPlexus`).
 */
import { randomUUID } from 'node:crypto';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { RemoteInvoker } from '../../runtime/index.js';
import { decodeEmergence } from '../../wire/emergence/codec.js';
import { emergenceErrorToPlexus } from '../../wire/emergence/error.js';
import { UUID_V4_PATTERN } from '../../wire/emergence/message.js';
import {
  checkAttemptTimeoutMs,
  retryAttempts,
  retryRunOf,
  type AttemptOutcome,
  type RetryingCallerInit,
} from '../peer/retry.js';

/** The extension key of a HELLO naming where the agent takes HELPs. */
export const EMERGENCE_ENDPOINT_KEY = '_x_endpoint';

/** The extension key of a forwarded HELP naming the Plexus verb asked for. */
export const EMERGENCE_VERB_KEY = '_x_verb';

/** The default per-attempt timeout, ms (seed 000 §3: the caller aborts after 30 s). */
export const EMERGENCE_ATTEMPT_TIMEOUT_MS = 30_000;

/** HTTP statuses a HELP is retried on (D4). */
const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '[::1]']);

/** True when `hostname` (as `URL.hostname` gives it) names this machine. */
function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * The problem with `value` as an agent endpoint, or `undefined` when it is usable: an absolute
 * `https` URL, or `http` on a loopback host; no credentials, query or fragment.
 */
export function emergenceEndpointProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) {
    return 'the endpoint must be an absolute URL (https://host/path)';
  }
  const url = new URL(value);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return `the endpoint must use https (http only on a loopback host such as 127.0.0.1), got ${url.protocol}//${url.hostname}`;
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '') {
    return 'the endpoint must not carry credentials or a fragment';
  }
  return undefined;
}

/** The Emergence endpoint of a card registered by HELLO, if it named one. */
export function emergenceEndpointOf(card: AgentCard): string | undefined {
  return card.endpoints?.find((e) => e.protocol === 'emergence')?.url;
}

/** Options of {@link emergenceRemoteInvoker}. */
export interface EmergenceRemoteInvokerInit extends RetryingCallerInit {
  /** Where requests for every other remote card go (the peer router). @default none: refused */
  readonly next?: RemoteInvoker;
  /** The node id, the `from` of the HELPs it sends when the request names none. */
  readonly nodeId: string;
  /** The HTTP client. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** Longest wait for one attempt, ms. @default 30000 */
  readonly attemptTimeoutMs?: number;
}

/**
 * A `RemoteInvoker` that sends requests for agents with an Emergence endpoint there, and every
 * other request to `next`.
 *
 * The returned `invoke` rejects with `PEER_UNAVAILABLE` when the endpoint cannot be reached
 * (after the retries for a retryable status) or answers something that is not the DONE or
 * ERROR of the HELP, `TIMEOUT` when every attempt timed out, `CANCELLED` when `signal` aborts.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad retry schedule or attempt timeout.
 * @example
 * const remote = emergenceRemoteInvoker({ nodeId, next: peerRouter });
 */
export function emergenceRemoteInvoker(init: EmergenceRemoteInvokerInit): RemoteInvoker {
  const runOf = retryRunOf(init, cancelled, 'agent endpoint call failed; retrying');
  const attemptTimeoutMs = checkAttemptTimeoutMs(init.attemptTimeoutMs ?? EMERGENCE_ATTEMPT_TIMEOUT_MS);
  const fetchFn = init.fetch ?? globalThis.fetch;
  const { next } = init;

  async function attempt(
    url: string,
    help: JsonObject,
    request: Envelope,
    signal: AbortSignal,
  ): Promise<AttemptOutcome> {
    const controller = new AbortController();
    const onAbort = (): void => {
      controller.abort();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const cut = { timedOut: false };
    const timer = setTimeout(() => {
      cut.timedOut = true;
      controller.abort();
    }, attemptTimeoutMs);
    const where = { endpoint: url, agent: request.to };
    try {
      let status: number;
      let text: string;
      try {
        const response = await fetchFn(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
          body: JSON.stringify(help),
          signal: controller.signal,
        });
        status = response.status;
        text = await response.text();
      } catch (cause) {
        if (signal.aborted) return { kind: 'fail', error: cancelled() };
        if (cut.timedOut) {
          const error = new PlexusError(
            'TIMEOUT',
            `agent endpoint ${url} did not answer within ${String(attemptTimeoutMs)} ms`,
            { cause, details: where },
          );
          return { kind: 'retry', error };
        }
        const error = new PlexusError(
          'PEER_UNAVAILABLE',
          `agent endpoint ${url} cannot be reached: ${describe(cause)}`,
          { cause, retryable: false, details: where },
        );
        return { kind: 'fail', error };
      }
      const reply = replyOf(text, help);
      const answer = reply === undefined ? undefined : answerOf(reply, request);
      if (RETRY_STATUSES.has(status)) {
        const error = new PlexusError(
          'PEER_UNAVAILABLE',
          `agent endpoint ${url} answered HTTP ${String(status)}`,
          { details: { ...where, status } },
        );
        return answer === undefined ? { kind: 'retry', error } : { kind: 'retry', error, answer };
      }
      if (answer !== undefined) return { kind: 'answer', envelope: answer };
      const error = new PlexusError(
        'PEER_UNAVAILABLE',
        `agent endpoint ${url} answered HTTP ${String(status)} without the DONE or ERROR of HELP ${request.id}`,
        { retryable: false, details: { ...where, status } },
      );
      return { kind: 'fail', error };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  return {
    async invoke(card, envelope, signal, context) {
      const url = emergenceEndpointOf(card);
      if (url === undefined) {
        if (next !== undefined) return next.invoke(card, envelope, signal, context);
        throw new PlexusError(
          'PEER_UNAVAILABLE',
          `agent ${card.id} is not hosted here and named no endpoint to reach it; it must announce one (HELLO with ${EMERGENCE_ENDPOINT_KEY})`,
          { details: { agent: card.id } },
        );
      }
      const help = helpOf(card, envelope, init.nodeId);
      return retryAttempts(
        () => attempt(url, help, envelope, signal),
        signal,
        runOf({ endpoint: url, agent: card.id, request: help['id'] }),
      );
    },
    reaches(card) {
      if (emergenceEndpointOf(card) !== undefined) return true;
      return next === undefined ? false : (next.reaches?.(card) ?? true);
    },
    ...(next?.routes === undefined ? {} : { routes: next.routes }),
  };
}

/** The HELP sent for `request`: same id (when a UUID v4), the input as `data`. */
function helpOf(card: AgentCard, request: Envelope, nodeId: string): JsonObject {
  const data: JsonValue = isJsonObject(request.data) ? request.data : { input: request.data ?? null };
  return {
    id: UUID_V4_PATTERN.test(request.id) ? request.id : randomUUID(),
    from: request.from === '' ? nodeId : request.from,
    to: card.id,
    verb: 'HELP',
    data,
    [EMERGENCE_VERB_KEY]: request.verb,
  };
}

/** The DONE or ERROR answering `help` in `text`, or `undefined`. */
function replyOf(text: string, help: JsonObject): Envelope | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  let reply: Envelope;
  try {
    reply = decodeEmergence(value);
  } catch {
    return undefined;
  }
  if (reply.id !== help['id'] || (reply.kind !== 'response' && reply.kind !== 'error')) return undefined;
  return reply;
}

/** The core answer envelope of a DONE / ERROR reply to `request`. */
function answerOf(reply: Envelope, request: Envelope): Envelope {
  const base = {
    id: request.id,
    from: reply.from,
    to: request.from,
    verb: request.verb,
    correlationId: request.id,
  };
  if (reply.kind === 'response') {
    const data = isJsonObject(reply.data) ? (reply.data['result'] ?? null) : null;
    return { ...base, kind: 'response', data };
  }
  const error = emergenceErrorToPlexus(reply);
  return { ...base, kind: 'error', data: error.toData() as unknown as JsonValue };
}

function cancelled(): PlexusError {
  return new PlexusError('CANCELLED', 'the call to the agent endpoint was cancelled');
}

function describe(error: unknown): string {
  const plexus = toPlexusError(error);
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error ? `${plexus.message} (${cause.message})` : plexus.message;
}
