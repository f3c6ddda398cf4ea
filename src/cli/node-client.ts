/**
 * A small HTTP client for the CLI commands that talk to a running node (`call`, `jobs`,
 * `agents`): base URL and bearer token from flags or the environment, bounded timeouts, and
 * every failure turned into a one-line `PlexusError`.
 */
import { PlexusError, isPlexusErrorCode } from '../core/errors.js';
import { plexusCodeFromHttp } from '../transports/http/http-status.js';

/** The node URL used when neither `--node` nor `PLEXUS_NODE` is given. */
export const DEFAULT_NODE_URL = 'http://127.0.0.1:3100';
/** The environment variable naming the node URL. */
export const NODE_URL_ENV = 'PLEXUS_NODE';
/** The environment variable holding the bearer token. */
export const TOKEN_ENV = 'PLEXUS_TOKEN';
/** How long a plain request may take before the CLI gives up, ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Where and how to reach a node. */
export interface NodeTarget {
  /** Base URL without a trailing `/`. */
  readonly url: string;
  /** Bearer token (JWT or API key), if any. */
  readonly token?: string;
}

/** The answer of a node. */
export interface NodeResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body, or the text when it is not JSON. */
  readonly body: unknown;
  readonly text: string;
}

/** Options of one request. */
export interface NodeRequestInit {
  readonly method?: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** @default 30000; 0 = no limit */
  readonly timeoutMs?: number;
}

/**
 * Resolves the node to talk to: `--node`, else `$PLEXUS_NODE`, else `http://127.0.0.1:3100`;
 * the token: `--token`, else `$PLEXUS_TOKEN`.
 *
 * @throws PlexusError `INVALID_PARAMS` when the URL is not an absolute http(s) URL.
 */
export function nodeTarget(
  opts: { node?: string | undefined; token?: string | undefined },
  env: Readonly<Record<string, string | undefined>> = process.env,
): NodeTarget {
  const raw = opts.node ?? env[NODE_URL_ENV] ?? DEFAULT_NODE_URL;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new PlexusError(
      'INVALID_PARAMS',
      `--node must be an absolute URL such as ${DEFAULT_NODE_URL}, got ${JSON.stringify(raw)}`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PlexusError(
      'INVALID_PARAMS',
      `--node must be an http:// or https:// URL, got ${JSON.stringify(raw)}`,
    );
  }
  const token = opts.token ?? env[TOKEN_ENV];
  const url = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  return token === undefined || token === '' ? { url } : { url, token };
}

/** The headers every request carries: JSON, and the bearer token when there is one. */
export function authHeaders(target: NodeTarget): Record<string, string> {
  return target.token === undefined ? {} : { authorization: `Bearer ${target.token}` };
}

function unreachable(target: NodeTarget, cause: unknown): PlexusError {
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = inner?.code;
  const why =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : typeof code === 'string'
        ? code
        : typeof inner?.message === 'string'
          ? inner.message
          : cause instanceof Error
            ? cause.message
            : String(cause);
  return new PlexusError(
    'PEER_UNAVAILABLE',
    `cannot reach the node at ${target.url}: ${why}; is \`plexus start\` running there? (set --node or ${NODE_URL_ENV})`,
    { cause },
  );
}

/**
 * Sends one request to the node and reads the whole answer.
 *
 * @throws PlexusError `PEER_UNAVAILABLE` when the node cannot be reached, `TIMEOUT` when it
 *   does not answer in time, `CANCELLED` when `signal` aborts.
 */
export async function nodeRequest(
  target: NodeTarget,
  path: string,
  init: NodeRequestInit = {},
): Promise<NodeResponse> {
  const timeoutMs = init.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const signals = [init.signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  const signal = signals.length === 0 ? undefined : AbortSignal.any(signals);
  let response: Response;
  try {
    response = await fetch(`${target.url}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...authHeaders(target),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (cause) {
    if (init.signal?.aborted === true)
      throw new PlexusError('CANCELLED', 'the request was cancelled', { cause });
    if (signal?.aborted === true) {
      throw new PlexusError('TIMEOUT', `the node at ${target.url} did not answer within ${timeoutMs} ms`, {
        cause,
      });
    }
    throw unreachable(target, cause);
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body, text };
}

/**
 * The error a non-2xx answer stands for: the node's own code and message when the body
 * carries a Plexus or ESRP error, else the HTTP status.
 */
export function responseError(response: NodeResponse, what: string): PlexusError {
  const body: unknown = response.body;
  const record = (value: unknown): Record<string, unknown> | undefined =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  const source = record(record(body)?.['error']) ?? record(body);
  const message = source?.['message'] ?? source?.['msg'] ?? source?.['detail'] ?? source?.['title'];
  const rawCode = source?.['code'];
  const code = isPlexusErrorCode(rawCode) ? rawCode : plexusCodeFromHttp(response.status);
  const shownCode = typeof rawCode === 'string' ? rawCode : code;
  const text =
    typeof message === 'string' ? message : response.text.trim().slice(0, 200) || `HTTP ${response.status}`;
  const hint =
    response.status === 401 ? ` (pass --token or set ${TOKEN_ENV}; \`plexus token issue\` makes one)` : '';
  return new PlexusError(code, `${what}: ${response.status} ${shownCode}: ${text}${hint}`, {
    details: { status: response.status },
  });
}

/**
 * Sends a request and returns the JSON body of a 2xx answer.
 *
 * @throws PlexusError as {@link nodeRequest}, or {@link responseError} for a non-2xx answer.
 */
export async function nodeJson(
  target: NodeTarget,
  path: string,
  what: string,
  init: NodeRequestInit = {},
): Promise<unknown> {
  const response = await nodeRequest(target, path, init);
  if (response.status < 200 || response.status > 299) throw responseError(response, what);
  return response.body;
}
