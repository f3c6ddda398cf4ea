/**
 * Calling a Plexus node over HTTP with the SDK's `invoke` signature: a synchronous ESRP
 * request (`POST /v1/execute`, seed 001) carrying the input as the JSON input named `input`
 * and the call's trace context; `query` reads `GET /agents`.
 *
 * ESRP carries no tenant, user or session: on this face they come from the bearer
 * credential, so `invoke` refuses those options rather than dropping them silently. A
 * capability token travels in the headers (`ucans`, `Plexus-Capability`; docs/capabilities.md).
 */
import { randomUUID } from 'node:crypto';
import { resultOfOutputs } from '../wire/esrp/outputs.js';
import { normalizeUuid } from '../core/esrp/uuid.js';
import { PlexusError, isPlexusErrorCode } from '../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';
import type { AgentCard } from '../core/records/agent-card.js';
import { esrpTargetOfCallName } from '../core/verb-alias.js';
import { contextFromTraceparent } from '../wire/esrp/trace.js';
import { CAPABILITY_HEADER, UCANS_HEADER } from '../transports/ucan-credential.js';
import { InvocationError, hintsOfRecoveryFields } from './invocation-error.js';
import { matchesPattern, parsePattern } from './pattern.js';
import { childTraceparent } from './trace-context.js';
import type { CallResult, InvokeOptions } from './verb-context.js';
import { verbInfosOf, type VerbInfo } from './verb-info.js';
import { esrpWarningsOf, reportWarnings } from './warnings.js';
import { plexusCodeFromHttp } from '../transports/http/http-status.js';

/** Options of {@link remoteClient}. */
export interface RemoteClientInit {
  /**
   * A bearer token the node accepts (node JWT, API key or UCAN). A UCAN may be given as its
   * container (`leaf,proof1,…`): the leaf goes in `Authorization: Bearer`, the proofs in the
   * `ucans` header (UCAN-as-Bearer-Token v0.3).
   */
  readonly token?: string;
  /**
   * A capability container (UCAN, then its proofs) sent with every call in the
   * `Plexus-Capability` header, beside a `token` of another kind; `InvokeOptions.capability`
   * overrides it for one call.
   */
  readonly capability?: string;
  /** The ESRP `caller.system`. @default 'plexus-sdk' */
  readonly caller?: string;
  /** Timeout of a call that names none, ms. @default 30000 */
  readonly timeoutMs?: number;
}

/** A client of a remote node. */
export interface RemoteClient {
  /**
   * Invokes a verb on the node; resolves with its output or its refusal.
   * @throws InvocationError with the node's code on an error answer; `PEER_UNAVAILABLE` when
   *   the node cannot be reached; `INVALID_PARAMS` for options ESRP cannot carry.
   */
  invoke<O = JsonValue>(verb: string, input: JsonValue, options?: InvokeOptions): Promise<CallResult<O>>;
  /**
   * The node's verbs matching `pattern` (`spec` is absent: cards carry schemas only).
   * @throws PlexusError `INVALID_PARAMS` for a bad pattern; `PEER_UNAVAILABLE`.
   */
  query(pattern: string, options?: { readonly signal?: AbortSignal }): Promise<readonly VerbInfo[]>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Extra time the HTTP request is given beyond the job's own timeout. */
const TRANSPORT_GRACE_MS = 5_000;

function refuseOption(options: InvokeOptions): void {
  for (const key of ['tenantId', 'userId', 'sessionId', 'to'] as const) {
    if (options[key] !== undefined) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `a remote call over ESRP cannot carry ${key}; the node takes it from the bearer credential (or call in-process)`,
        { details: { pointer: `/${key}` } },
      );
    }
  }
}

/**
 * A client of the node at `url` (`http://127.0.0.1:3100`).
 *
 * @throws PlexusError `INVALID_PARAMS` when `url` is not an absolute http(s) URL.
 * @example
 * const remote = remoteClient('http://127.0.0.1:3100', { token: process.env.PLEXUS_TOKEN });
 * const sum = await remote.invoke('math.evaluate', { expression: '1 + 2' });
 */
export function remoteClient(url: string, init: RemoteClientInit = {}): RemoteClient {
  let base: URL;
  try {
    base = new URL(url);
  } catch (cause) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `remoteClient needs an absolute URL, got ${JSON.stringify(url)}`,
      { cause },
    );
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new PlexusError('INVALID_PARAMS', `remoteClient needs an http(s) URL, got ${JSON.stringify(url)}`);
  }
  const root = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
  const [bearer, ...proofs] = (init.token ?? '').split(',').map((part) => part.trim());
  const headers = (json: boolean, capability: string | undefined): Record<string, string> => ({
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...(bearer === undefined || bearer === '' ? {} : { authorization: `Bearer ${bearer}` }),
    ...(proofs.length === 0 ? {} : { [UCANS_HEADER]: proofs.join(',') }),
    ...(capability === undefined ? {} : { [CAPABILITY_HEADER]: capability }),
  });

  const send = async (
    path: string,
    request: RequestInit,
    timeoutMs: number,
    signal?: AbortSignal,
    capability: string | undefined = init.capability,
  ) => {
    const signals = [AbortSignal.timeout(timeoutMs), ...(signal === undefined ? [] : [signal])];
    let response: Response;
    try {
      response = await fetch(`${root}${path}`, {
        ...request,
        headers: headers(request.body !== undefined, capability),
        signal: AbortSignal.any(signals),
      });
    } catch (cause) {
      if (signal?.aborted === true)
        throw new PlexusError('CANCELLED', `call to ${root}${path} aborted`, { cause });
      throw new PlexusError(
        'PEER_UNAVAILABLE',
        `cannot reach the node at ${root}: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (cause) {
      throw new PlexusError(
        plexusCodeFromHttp(response.status),
        `the node at ${root} answered ${response.status} with a body that is not JSON: ${text.slice(0, 120)}`,
        { cause },
      );
    }
    return { status: response.status, body };
  };

  return {
    async invoke<O = JsonValue>(
      verb: string,
      input: JsonValue,
      options: InvokeOptions = {},
    ): Promise<CallResult<O>> {
      refuseOption(options);
      const traceparent = childTraceparent(options.traceparent);
      const causation = options.causationId === undefined ? undefined : normalizeUuid(options.causationId);
      if (options.causationId !== undefined && causation === undefined) {
        throw new PlexusError('INVALID_PARAMS', 'a remote call over ESRP needs causationId to be a UUID', {
          details: { pointer: '/causationId' },
        });
      }
      const timeoutMs = options.timeoutMs ?? init.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const context = contextFromTraceparent(traceparent);
      const requestId = randomUUID();
      const request: JsonObject = {
        esrp_version: '1.0',
        request_id: requestId,
        // every call runs unless the caller names a key (ESRP's default key is the payload hash)
        idempotency_key: options.idempotencyKey ?? requestId,
        timestamp: new Date().toISOString(),
        ...(causation === undefined ? {} : { causation_id: causation }),
        caller: { system: init.caller ?? 'plexus-sdk' },
        target: esrpTargetOfCallName(verb),
        mode: { type: 'sync', timeout_ms: timeoutMs },
        ...(context === undefined
          ? {}
          : { context: { trace_id: context.trace_id, span_id: context.span_id, tags: null } }),
        inputs: [
          {
            name: 'input',
            content_type: 'application/json',
            data: JSON.stringify(input),
            encoding: 'utf-8',
            metadata: null,
          },
        ],
        params: null,
      };
      const { body } = await send(
        '/v1/execute',
        { method: 'POST', body: JSON.stringify(request) },
        timeoutMs + TRANSPORT_GRACE_MS,
        options.signal,
        options.capability ?? init.capability,
      );
      const answer: JsonObject = isJsonObject(body) ? body : {};
      const job = isJsonObject(answer['job']) ? answer['job'] : {};
      const jobId = typeof job['job_id'] === 'string' ? job['job_id'] : undefined;
      reportWarnings(options, esrpWarningsOf(answer));
      if (answer['status'] === 'succeeded') return resultOfOutputs(answer['outputs']) as CallResult<O>;
      const error = isJsonObject(answer['error']) ? answer['error'] : {};
      const details = isJsonObject(error['details']) ? error['details'] : {};
      const plexusCode = details['plexus_code'];
      const hints = hintsOfRecoveryFields(details);
      throw new InvocationError(
        {
          code: isPlexusErrorCode(plexusCode) ? plexusCode : 'INTERNAL',
          message:
            typeof error['message'] === 'string' ? error['message'] : 'the node answered without an error',
          retryable: error['retryable'] === true,
          details,
          ...(hints === undefined ? {} : { hints }),
        },
        { verb, traceparent, ...(jobId === undefined ? {} : { jobId }) },
      );
    },
    async query(pattern, options = {}) {
      const parsed = parsePattern(pattern);
      const { status, body } = await send(
        '/agents',
        { method: 'GET' },
        init.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        options.signal,
      );
      const agents = isJsonObject(body) ? body['agents'] : undefined;
      if (status !== 200 || !Array.isArray(agents)) {
        throw new PlexusError(plexusCodeFromHttp(status), `GET ${root}/agents answered ${status}`);
      }
      return verbInfosOf(agents as unknown as AgentCard[], () => undefined).filter((v) =>
        matchesPattern(parsed, v.verb),
      );
    },
  };
}
