// Talking to the node: fetch with the token kept in sessionStorage (a browser cannot send a
// bearer header on navigation, OBS-40), and Server-Sent Events read with fetch streaming (the
// EventSource API cannot send a header either).

const TOKEN_KEY = 'plexus.token';

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** An answer the node refused: its status and parsed body. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

function headers(extra = {}) {
  const t = token();
  return t ? { ...extra, authorization: `Bearer ${t}` } : extra;
}

/** Listeners told when the node asks for a credential (401). */
const unauthorizedListeners = new Set();
export function onUnauthorized(listener) {
  unauthorizedListeners.add(listener);
}

async function check(response) {
  const text = await response.text();
  let body;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = { error: { code: 'BAD_ANSWER', message: text.slice(0, 200) } };
  }
  if (response.status === 401) for (const listener of unauthorizedListeners) listener();
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** GET `path` as JSON. @throws ApiError */
export async function getJson(path, signal) {
  return check(await fetch(path, { headers: headers({ accept: 'application/json' }), signal }));
}

/** POST `body` as JSON to `path`. @throws ApiError (also for ESRP answers whose status is failed) */
export async function postJson(path, body, signal) {
  const response = await fetch(path, {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json', accept: 'application/json' }),
    body: JSON.stringify(body),
    signal,
  });
  return check(response);
}

/**
 * Reads the SSE stream at `path`, calling onEvent({event, id, data}) for each message (data
 * parsed as JSON), until the stream ends or `signal` aborts; onOpen() once the node has
 * answered. Resolves when it ends.
 */
export async function readSse(path, onEvent, signal, lastEventId, onOpen) {
  const response = await fetch(path, {
    headers: headers({
      accept: 'text/event-stream',
      ...(lastEventId ? { 'last-event-id': String(lastEventId) } : {}),
    }),
    signal,
  });
  if (!response.ok) await check(response);
  onOpen?.();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message = { event: 'message', id: undefined, data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') message.event = text;
        else if (field === 'id') message.id = text;
        else if (field === 'data') message.data += (message.data ? '\n' : '') + text;
      }
      if (message.data === '') continue;
      try {
        onEvent({ ...message, data: JSON.parse(message.data) });
      } catch (error) {
        if (error instanceof SyntaxError) continue;
        throw error;
      }
    }
  }
}

/** True for the error of an aborted fetch (leaving a page). */
export function aborted(error) {
  return error?.name === 'AbortError';
}

/** The plain input schema of a verb: the `else` branch of a schema that also admits ESRP data. */
export function plainSchema(schema) {
  if (schema && typeof schema === 'object' && schema.if && schema.then === true && schema.else)
    return schema.else;
  return schema ?? {};
}

/** A random UUID (crypto.randomUUID exists only in secure contexts; a node may be served over plain HTTP). */
export function uuid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((n) => n.toString(16).padStart(2, '0')).join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** An ESRP v1 request running `verb` with `input` (async: answered at once with the job id). */
export function esrpRequest(verb, input) {
  const dot = verb.lastIndexOf('.');
  return {
    esrp_version: '1.0',
    request_id: uuid(),
    timestamp: new Date().toISOString(),
    caller: { system: 'plexus-dashboard' },
    target: { service: verb.slice(0, dot), operation: verb.slice(dot + 1) },
    mode: { type: 'async', timeout_ms: 60_000 },
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
}

/** The outputs of an ESRP answer, JSON ones parsed. */
export function esrpOutputs(outputs) {
  return (outputs ?? []).map((o) => {
    let value = o.data;
    if (typeof value === 'string' && /json/.test(o.content_type ?? '')) {
      try {
        value = JSON.parse(value);
      } catch {
        /* shown as text */
      }
    }
    return { name: o.name, contentType: o.content_type, value };
  });
}
