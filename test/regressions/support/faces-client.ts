/**
 * Small clients for the regression tests that speak to every face of an in-process node:
 * raw-text POSTs (the bodies are built as text, so they can hold what `JSON.stringify`
 * cannot write or would overflow on) and a WebSocket JSON-RPC socket answering in order.
 */
import WebSocket from 'ws';

/** An HTTP answer: status, `Retry-After`, the body text and its JSON (when it is JSON). */
export interface RawAnswer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly text: string;
  readonly body: Record<string, unknown>;
}

/** POSTs `text` as `application/json` to `url`. */
export async function postText(url: string, text: string): Promise<RawAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    body: text,
    headers: { 'content-type': 'application/json' },
  });
  const body = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    // not JSON: the assertions on `body` fail with the text beside them
  }
  return { status: res.status, retryAfter: res.headers.get('retry-after'), text: body, body: parsed };
}

/** `n` nested arrays as text (`[[…]]`): 2n bytes. */
export function nestedArrays(n: number): string {
  return '['.repeat(n) + ']'.repeat(n);
}

/** An ESRP request (as text) for `service.operation` whose one JSON input is `data` (JSON text, raw). */
export function esrpText(service: string, operation: string, dataText: string, requestId: string): string {
  return (
    `{"esrp_version":"1.0","request_id":"${requestId}","timestamp":"${new Date().toISOString()}",` +
    `"caller":{"system":"regression"},"target":{"service":"${service}","operation":"${operation}"},` +
    `"mode":{"type":"sync","timeout_ms":30000},"inputs":[{"name":"input","content_type":"application/json",` +
    `"data":${dataText},"encoding":"utf-8","metadata":null}],"params":null}`
  );
}

/** An Emergence HELP (as text) to `to`, with `dataText` (raw JSON text) as its data. */
export function emergenceText(id: string, to: string, dataText: string, from = 'regression'): string {
  return `{"id":"${id}","from":${from},"to":"${to}","verb":"HELP","data":${dataText}}`;
}

/** A JSON-RPC reply. */
export interface RpcReply {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** A WebSocket JSON-RPC client that sends one text at a time and waits for its reply. */
export interface RpcSocket {
  ask(text: string): Promise<RpcReply>;
  close(): void;
}

/** Opens a JSON-RPC socket on `${url}/rpc` (the node's WebSocket face). */
export async function openRpc(url: string): Promise<RpcSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/rpc`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      resolve();
    });
    ws.once('error', reject);
  });
  return {
    ask: (text) =>
      new Promise<RpcReply>((resolve, reject) => {
        ws.once('message', (data: Buffer) => {
          try {
            resolve(JSON.parse(data.toString('utf8')) as RpcReply);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
        ws.send(text);
      }),
    close: () => {
      ws.terminate();
    },
  };
}
