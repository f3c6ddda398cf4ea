/**
 * The fixed part of the generated TypeScript client: call options, the transport contract,
 * the client error, and an HTTP transport speaking ESRP v1 (`POST /v1/execute`, the request
 * shape of `src/cli/esrp-client.ts`: the verb's input as the JSON input named `input`, the
 * result read from the single `result` output). Dependency-free: it uses only `fetch` and
 * `crypto.randomUUID` from the global scope, or the functions the caller passes.
 */

/** The TypeScript source of the client runtime, inserted into every generated module. */
export const HTTP_CLIENT_SOURCE = `/** Options of one call. */
export interface PlexusCallOptions {
  /** How long the node may take, ms (ESRP \`mode.timeout_ms\`). @default 600000 */
  readonly timeoutMs?: number;
  /** Calls with the same key inside the node's window run once (ESRP \`idempotency_key\`). */
  readonly idempotencyKey?: string;
}

/** One call as a transport sees it. */
export interface PlexusCall {
  /** The verb name without version. */
  readonly verb: string;
  /** The era called. */
  readonly version: number | string;
  /** The verb's input. */
  readonly input: unknown;
  readonly options: PlexusCallOptions;
}

/** Sends a call and resolves with the verb's output (or rejects with a PlexusClientError). */
export type PlexusTransport = (call: PlexusCall) => Promise<unknown>;

/** A failed call: the node's error code, message and details. */
export class PlexusClientError extends Error {
  override readonly name = 'PlexusClientError';
  /** The Plexus error code (\`INVALID_PARAMS\`, \`NOT_FOUND\`, …) or the ESRP code. */
  readonly code: string;
  /** What the node said beyond the message. */
  readonly details: unknown;
  constructor(code: string, message: string, details: unknown = null) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/** The part of \`fetch\` the HTTP transport uses. */
export type PlexusFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string },
) => Promise<{ readonly status: number; text(): Promise<string> }>;

/** Where and how to reach a node. */
export interface PlexusHttpInit {
  /** The node's base URL, e.g. http://127.0.0.1:3100. */
  readonly url: string;
  /** A bearer token (JWT, API key or UCAN). */
  readonly token?: string;
  /** The fetch to use. @default globalThis.fetch */
  readonly fetch?: PlexusFetch;
  /** Makes request ids (UUIDs). @default globalThis.crypto.randomUUID */
  readonly newId?: () => string;
}

function plexusRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The verb's output in an ESRP response, or a PlexusClientError for a failed one. */
export function plexusResultOf(body: unknown, status: number): unknown {
  const response = plexusRecord(body);
  if (response?.['status'] === 'succeeded') {
    const outputs = response['outputs'];
    const only = Array.isArray(outputs) && outputs.length === 1 ? plexusRecord(outputs[0]) : undefined;
    const type = only?.['content_type'];
    if (only?.['name'] === 'result' && typeof only['data'] === 'string' && typeof type === 'string' && type.startsWith('application/json')) {
      return JSON.parse(only['data']) as unknown;
    }
    return outputs;
  }
  const error = plexusRecord(response?.['error']);
  const details = plexusRecord(error?.['details']);
  const plexusCode = details?.['plexus_code'];
  const code = typeof plexusCode === 'string' ? plexusCode : typeof error?.['code'] === 'string' ? error['code'] : 'UNKNOWN';
  const message = typeof error?.['message'] === 'string' ? error['message'] : \`the node answered HTTP \${String(status)}\`;
  throw new PlexusClientError(code, message, error?.['details'] ?? null);
}

/** A transport that calls a node over HTTP with ESRP v1 \`POST /v1/execute\` (sync mode). */
export function plexusHttpTransport(init: PlexusHttpInit): PlexusTransport {
  const base = init.url.replace(/\\/+$/, '');
  const doFetch = init.fetch ?? (globalThis as unknown as { fetch?: PlexusFetch }).fetch;
  const newId =
    init.newId ??
    ((): string => {
      const random = (globalThis as unknown as { crypto?: { randomUUID?: () => string } }).crypto?.randomUUID;
      if (random === undefined) throw new PlexusClientError('INTERNAL', 'no crypto.randomUUID here; pass newId');
      return random.call((globalThis as unknown as { crypto: unknown }).crypto);
    });
  return async (call) => {
    if (doFetch === undefined) throw new PlexusClientError('INTERNAL', 'no fetch here; pass fetch in the init');
    const segments = call.verb.split('.');
    const operation = segments.pop() ?? '';
    const request = {
      esrp_version: '1.0',
      request_id: newId(),
      ...(call.options.idempotencyKey === undefined ? {} : { idempotency_key: call.options.idempotencyKey }),
      timestamp: new Date().toISOString(),
      caller: { system: 'plexus-generated-client' },
      target: { service: segments.join('.'), operation },
      mode: { type: 'sync', timeout_ms: call.options.timeoutMs ?? 600000 },
      inputs: [
        {
          name: 'input',
          content_type: 'application/json',
          data: JSON.stringify(call.input),
          encoding: 'utf-8',
          metadata: null,
        },
      ],
      params: null,
    };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (init.token !== undefined) headers['authorization'] = \`Bearer \${init.token}\`;
    const response = await doFetch(\`\${base}/v1/execute\`, { method: 'POST', headers, body: JSON.stringify(request) });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      throw new PlexusClientError('INTERNAL', \`the node answered HTTP \${String(response.status)} with text that is not JSON\`, text.slice(0, 200));
    }
    return plexusResultOf(body, response.status);
  };
}
`;
