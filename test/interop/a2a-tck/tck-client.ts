/**
 * What the TCK port's test files share: the raw protocol calls the TCK makes (JSON-RPC and
 * HTTP+JSON, with its headers), messages in the TCK's form (text parts, a `messageId` whose
 * prefix selects the system-under-test scenario of the `tck` demo agent) and an SSE reader.
 */
import { randomUUID } from 'node:crypto';
import { sseParser } from '../../../src/cli/sse.js';

/** The A2A terminal states (v1.0 JSON names). */
export const TERMINAL = [
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
];

export interface RpcAnswer {
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown[] };
}

export interface TaskJson {
  readonly id: string;
  readonly contextId: string;
  readonly status: { readonly state: string; readonly message?: { readonly parts: unknown[] } };
  readonly artifacts?: { readonly parts: Record<string, unknown>[] }[];
  readonly history?: unknown[];
}

/** A message as the TCK sends it: text parts, `messageId` `<prefix>-<uuid>`. */
export function tckMessage(prefix: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    role: 'ROLE_USER',
    parts: [{ text: 'TCK message' }],
    messageId: `${prefix}-${randomUUID()}`,
    ...extra,
  };
}

/** A JSON-RPC call to `url` (A2A-Version 1.0 unless `headers` says otherwise). */
export async function rpcAt(
  url: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = { 'a2a-version': '1.0' },
): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
  });
  return (await res.json()) as RpcAnswer;
}

/** An HTTP+JSON call: `path` under the interface URL `base`. */
export function restAt(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { 'a2a-version': '1.0' },
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A POST that opens an SSE stream, JSON-RPC (`method` set) or REST (`method` undefined). */
export function openStream(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC request body of `method`. */
export function rpcBody(method: string, params: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: randomUUID(), method, params };
}

/**
 * The `data:` payloads of an SSE answer as they arrive (JSON-RPC's `result` unwrapped); stops
 * at the end of the stream, or when the caller stops iterating (the connection is then closed).
 */
export async function* sseData(res: Response): AsyncGenerator<Record<string, unknown>, void, undefined> {
  const body = res.body;
  if (body === null) return;
  const reader = body.getReader();
  const parser = sseParser();
  const decoder = new TextDecoder();
  try {
    for (let chunk = 0; chunk < 100_000; chunk++) {
      const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (done) return;
      for (const event of parser.push(decoder.decode(value, { stream: true }))) {
        const data = JSON.parse(event.data) as Record<string, unknown>;
        yield (data['result'] as Record<string, unknown> | undefined) ?? data;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Every payload of an SSE answer, to its end. */
export async function allSse(res: Response): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const data of sseData(res)) out.push(data);
  return out;
}

/** The state a stream payload carries (`task` or `statusUpdate`), if any. */
export function stateOf(payload: Record<string, unknown>): string | undefined {
  const holder = (payload['task'] ?? payload['statusUpdate']) as { status?: { state?: string } } | undefined;
  return holder?.status?.state;
}
