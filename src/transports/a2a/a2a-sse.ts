/**
 * What both A2A bindings share on the wire: the options their routes take from the face, and
 * the SSE writer of a streamed answer (SendStreamingMessage, SubscribeToTask). A failure before
 * the first item is answered as a plain error in the binding's form (not a stream); a failure
 * later is one `event: error` and the end of the stream.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Runtime } from '../../runtime/index.js';
import type { A2aCaller, JobTaskHandlerInit } from './job-task-handler.js';

/** What the A2A routes need from the face. */
export interface A2aRoutesInit {
  readonly runtime: Runtime;
  readonly nodeId: string;
  readonly bodyLimitBytes: number;
  /** Push notification configs and their policy (absent: not supported). */
  readonly push?: JobTaskHandlerInit['push'];
  /** The authenticated caller of `request`, less its signal (set by the face's hook). */
  callerOf(request: FastifyRequest): Omit<A2aCaller, 'signal'>;
  /** Tracks an open stream so the face can end it when it stops; returns the untrack function. */
  readonly track: (end: () => void) => () => void;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** How one binding writes a streamed answer. */
export interface SseForm<T> {
  /** The `data:` text of one item. */
  item(value: T): string;
  /** The `data:` text of an error after the stream began. */
  error(failure: unknown): string;
  /** Answers a failure before the first item (no stream yet). */
  refuse(reply: FastifyReply, failure: unknown): unknown;
}

/** Writes `stream` as SSE on the hijacked reply until it ends, the client goes away or the face stops. */
export async function sendSse<T>(
  reply: FastifyReply,
  stream: AsyncGenerator<T, void, undefined>,
  form: SseForm<T>,
  abort: AbortController,
  track: A2aRoutesInit['track'],
): Promise<void> {
  let first: IteratorResult<T, void>;
  try {
    first = await stream.next();
  } catch (error) {
    await form.refuse(reply, error);
    return;
  }
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, SSE_HEADERS);
  const untrack = track(() => {
    abort.abort();
    raw.end();
  });
  try {
    if (first.done !== true) {
      raw.write(`data: ${form.item(first.value)}\n\n`);
      for await (const item of stream) {
        if (raw.writableEnded) break;
        raw.write(`data: ${form.item(item)}\n\n`);
      }
    }
  } catch (error) {
    if (!abort.signal.aborted && !raw.writableEnded)
      raw.write(`event: error\ndata: ${form.error(error)}\n\n`);
  } finally {
    untrack();
    if (!raw.writableEnded) raw.end();
  }
}
