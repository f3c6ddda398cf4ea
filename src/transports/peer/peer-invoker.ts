/**
 * The sending side of node-to-node calls: a `RemoteInvoker` that signs the forwarded request
 * with the node's key (D3, domain `plexus/rpc/<verb>`), POSTs it to the peer's
 * `/v1/peer/invoke`, and returns the peer's answer envelope unchanged.
 *
 * Retries follow D4: up to three, after 0.5 / 1 / 2 s with jitter, only for timeouts of an
 * attempt, network failures and HTTP 429 / 502 / 503 / 504. Each attempt is signed afresh
 * (a new nonce and time — the old signature would be a replay) over the same envelope, so
 * the request id and payload, hence the far side's idempotency key, stay the same. Answers
 * the peer gave (including `error` envelopes with a retryable code) come back as they are:
 * the job on the far side ran, and whether to run it again is the caller's call.
 */
import { cleanTracestate } from '../../core/tracestate.js';
import { TRACEPARENT_HEADER, TRACESTATE_HEADER } from '../trace-headers.js';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { RemoteInvoker } from '../../runtime/index.js';
import { rpcDomain, signEnvelope, type Ed25519KeyPair } from '../../security/index.js';
import { PEER_INVOKE_PATH, PEER_TIMEOUT_HEADER, normalizePeerUrl, type PeerConfig } from './peer-config.js';
import { RETRYABLE_STATUSES, answerEnvelopeOf, errorDataOf, withDetails } from './peer-wire.js';
import {
  checkAttemptTimeout,
  retryAttempts,
  retryRunner,
  type AttemptOutcome,
  type RetryOptions,
} from './retry.js';
import { plexusCodeFromHttp } from '../http/http-status.js';
import { silentLogger } from '../../core/logger.js';
import { logEnvelope } from '../../observability/logging/envelope-log.js';
import { isRefusedConnection } from '../../runtime/routing/unsent.js';

/** Finds the peer node a remote card was learned from ({@link PeerDirectory} is one). */
export interface PeerResolver {
  /** The peer that announced `card`, or `undefined` when no configured peer did. */
  peerFor(card: AgentCard): PeerConfig | undefined;
}

/** Options of {@link peerRemoteInvoker}. */
export interface PeerRemoteInvokerInit extends RetryOptions {
  /** The node's key: every forwarded request is signed with it. */
  readonly key: Ed25519KeyPair;
  /** Where remote cards came from. */
  readonly peers: PeerResolver;
  /** The HTTP client. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * Longest wait for one attempt, ms; an attempt cut by it counts as a timeout (retried) and
   * the peer is told the same bound (header `plexus-timeout-ms`). Without it an attempt lasts
   * until the job's own deadline or cancellation (the `signal`).
   * @default undefined
   */
  readonly attemptTimeoutMs?: number;
  /** The clock for signatures, Unix ms. @default Date.now */
  readonly now?: () => number;
}

/**
 * Creates the node's `RemoteInvoker` over HTTP.
 *
 * The returned `invoke` rejects with `PEER_UNAVAILABLE` (retryable) when no peer announces the
 * card or the peer cannot be reached after the retries, `TIMEOUT` when every attempt timed
 * out, `CANCELLED` when `signal` aborts, the peer's own refusal (e.g. `SIGNATURE_REPLAYED`,
 * `FORBIDDEN`, with `details.peer`) for a non-retryable HTTP error, and `INVALID_PARAMS` when
 * the envelope cannot be signed.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad retry schedule or attempt timeout.
 * @example
 * const remote = peerRemoteInvoker({ key: nodeKey, peers: directory });
 * const runtime = createRuntime({ log, remote });
 */
export function peerRemoteInvoker(init: PeerRemoteInvokerInit): RemoteInvoker {
  const runOf = retryRunner(init, cancelled);
  const attemptTimeoutMs =
    init.attemptTimeoutMs === undefined ? undefined : checkAttemptTimeout(init.attemptTimeoutMs);
  const fetchFn = init.fetch ?? globalThis.fetch;
  const now = init.now ?? Date.now;
  const logger = init.logger ?? silentLogger;

  async function attempt(
    peer: PeerConfig,
    url: string,
    envelope: Envelope,
    signal: AbortSignal,
  ): Promise<AttemptOutcome> {
    let body: string;
    try {
      const signed = signEnvelope(envelope as unknown as JsonValue, {
        key: init.key,
        domain: rpcDomain(envelope.verb),
        now,
      });
      body = JSON.stringify(signed);
    } catch (error) {
      return { kind: 'fail', error: toPlexusError(error) };
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (peer.token !== undefined) headers['authorization'] = `Bearer ${peer.token}`;
    if (attemptTimeoutMs !== undefined) headers[PEER_TIMEOUT_HEADER] = String(attemptTimeoutMs);
    // W3C Trace Context on the wire too (the signed body carries it as well): the hop's span
    if (envelope.traceparent !== undefined) {
      headers[TRACEPARENT_HEADER] = envelope.traceparent;
      const tracestate = cleanTracestate(envelope.tracestate); // OBS-45: a malformed one is dropped
      if (tracestate !== undefined) headers[TRACESTATE_HEADER] = tracestate;
    }

    const controller = new AbortController();
    const onAbort = (): void => {
      controller.abort();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const cut = { timedOut: false };
    const timer =
      attemptTimeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            cut.timedOut = true;
            controller.abort();
          }, attemptTimeoutMs);
    const where = { peer: url };
    try {
      let status: number;
      let text: string;
      try {
        logEnvelope(logger, 'sent', envelope, url);
        const response = await fetchFn(url, { method: 'POST', headers, body, signal: controller.signal });
        status = response.status;
        text = await response.text();
      } catch (cause) {
        if (signal.aborted) return { kind: 'fail', error: cancelled() };
        if (cut.timedOut) {
          return {
            kind: 'retry',
            error: new PlexusError(
              'TIMEOUT',
              `peer ${url} did not answer within ${String(attemptTimeoutMs)} ms`,
              {
                cause,
                details: where,
              },
            ),
          };
        }
        return {
          kind: 'retry',
          error: new PlexusError('PEER_UNAVAILABLE', `peer ${url} cannot be reached: ${describe(cause)}`, {
            cause,
            details: where,
          }),
          unsent: isRefusedConnection(cause),
        };
      }
      const value = parseOrUndefined(text);
      const answer = answerEnvelopeOf(value);
      if (answer !== undefined) logEnvelope(logger, 'received', answer, url, { status });
      if (status >= 200 && status < 300) {
        if (answer !== undefined) return { kind: 'answer', envelope: answer };
        return {
          kind: 'fail',
          error: new PlexusError(
            'PEER_UNAVAILABLE',
            `peer ${url} answered ${status} without an answer envelope`,
            {
              retryable: false,
              details: { ...where, status },
            },
          ),
        };
      }
      const error = refusal(url, status, value);
      if (RETRYABLE_STATUSES.has(status)) {
        return answer === undefined ? { kind: 'retry', error } : { kind: 'retry', error, answer };
      }
      return answer === undefined ? { kind: 'fail', error } : { kind: 'answer', envelope: answer };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  return {
    async invoke(card: AgentCard, envelope: Envelope, signal: AbortSignal): Promise<Envelope> {
      const peer = init.peers.peerFor(card);
      if (peer === undefined) {
        throw new PlexusError(
          'PEER_UNAVAILABLE',
          `agent ${card.id} is remote but no configured peer announces it (yet); retry after the next poll`,
          { details: { agent: card.id } },
        );
      }
      const url = `${normalizePeerUrl(peer.url)}${PEER_INVOKE_PATH}`;
      return retryAttempts(
        () => attempt(peer, url, envelope, signal),
        signal,
        runOf({ peer: url, agent: card.id, request: envelope.id }, 'peer call failed; retrying'),
      );
    },
  };
}

function cancelled(): PlexusError {
  return new PlexusError('CANCELLED', 'the forwarded call was cancelled');
}

function refusal(url: string, status: number, value: unknown): PlexusError {
  const data = errorDataOf(value);
  if (data !== undefined) {
    return withDetails(
      PlexusError.fromData(data),
      { peer: url, status },
      `peer ${url} refused: ${data.message}`,
    );
  }
  return new PlexusError(plexusCodeFromHttp(status), `peer ${url} answered HTTP ${String(status)}`, {
    details: { peer: url, status },
  });
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
