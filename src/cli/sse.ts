/**
 * A Server-Sent Events reader for the CLI (`plexus call --follow`): splits a
 * `text/event-stream` body into events as the WHATWG HTML standard describes (fields `id`,
 * `event`, `data`, `retry`; comments; CR, LF or CRLF line ends).
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `id:` of the event (the last one seen in the stream when the event has none). */
  readonly id?: string;
  /** The `event:` name. @default 'message' */
  readonly event: string;
  /** The `data:` lines joined by `\n`. */
  readonly data: string;
}

/** An incremental parser: feed it text, take the events it completes. */
export interface SseParser {
  /** Adds text and returns the events completed by it. */
  push(text: string): SseEvent[];
}

/** Creates an {@link SseParser}. */
export function sseParser(): SseParser {
  let buffer = '';
  let lastId: string | undefined;
  let event = '';
  let data: string[] = [];
  let hasData = false;
  const dispatch = (out: SseEvent[]): void => {
    if (hasData) {
      out.push({
        ...(lastId === undefined ? {} : { id: lastId }),
        event: event === '' ? 'message' : event,
        data: data.join('\n'),
      });
    }
    event = '';
    data = [];
    hasData = false;
  };
  return {
    push(text: string): SseEvent[] {
      buffer += text;
      const out: SseEvent[] = [];
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        if (match === null) break;
        // A lone CR at the very end may be the first half of CRLF: wait for more text.
        if (match[0] === '\r' && match.index === buffer.length - 1) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === '') {
          dispatch(out);
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') {
          data.push(value);
          hasData = true;
        } else if (field === 'event') event = value;
        else if (field === 'id' && !value.includes('\0')) lastId = value;
      }
      return out;
    },
  };
}

/** Reads the events of an SSE response body until it ends or `signal` aborts. */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseEvent> {
  const parser = sseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const onAbort = (): void => {
    void reader.cancel().catch(() => undefined);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode()); // an unterminated last event is dropped, as the standard says
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}
