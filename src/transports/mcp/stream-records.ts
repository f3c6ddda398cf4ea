/**
 * The `tools/call`s answered on a POST's SSE stream, kept in the event log so the stream can be
 * resumed after a restart (issue 13 item 1; docs/decisions/mcp.md MCP-57): one `mcp.stream.call`
 * event per call — the JSON-RPC id, the tool, the client's progress token and the idempotency
 * key the call's job was submitted with — appended before the job is submitted (the log keeps
 * the order of appends, so a job in the log always has its record before it). The causation is
 * `mcp-stream:<session hash>:<stream key>`: only the session that opened the stream finds it.
 */
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { Logger } from '../../core/logger.js';
import type { EventLog } from '../../store/event-log.js';

declare module '../../store/event-map.js' {
  interface EventMap {
    /** A tools/call answered on a resumable POST stream (data: {@link StreamedCall} + session, stream). */
    'mcp.stream.call': JsonObject;
  }
}

/** The event type of a streamed call. */
export const MCP_STREAM_CALL_EVENT = 'mcp.stream.call';

/** One call of a stream. */
export interface StreamedCall {
  /** The JSON-RPC id of the request. */
  readonly id: string | number;
  /** The tool called. */
  readonly tool: string;
  /** The client's progress token, when it asked for progress. */
  readonly token?: string | number;
  /** The idempotency key the call's job has (unscoped: `mcp:<uuid>`). */
  readonly key: string;
}

/** Calls of one stream read at most (a POST carries a bounded batch). */
const MAX_CALLS = 1000;

/** The causation of the calls of stream `stream` of session `hash`. */
export function streamCausation(hash: string, stream: string): string {
  return `mcp-stream:${hash}:${stream}`;
}

/**
 * The causation of the `mcp.invocation` record of a streamed call with idempotency key `key`
 * (MCP-62): one read over the causation index tells whether the call was recorded already.
 */
export function callCausation(key: string): string {
  return `mcp-call:${key}`;
}

/** True when the call with idempotency key `key` has its `mcp.invocation` record (MCP-62). */
export async function callRecorded(log: EventLog, key: string, signal?: AbortSignal): Promise<boolean> {
  const [found] = await log.read({
    causation: callCausation(key),
    type: 'mcp.invocation',
    limit: 1,
    ...(signal === undefined ? {} : { signal }),
  });
  return found !== undefined;
}

function callOf(data: unknown): StreamedCall | undefined {
  if (!isJsonObject(data)) return undefined;
  const { id, tool, token, key } = data;
  if (
    (typeof id !== 'string' && typeof id !== 'number') ||
    typeof tool !== 'string' ||
    typeof key !== 'string'
  )
    return undefined;
  return { id, tool, key, ...(typeof token === 'string' || typeof token === 'number' ? { token } : {}) };
}

/** Records the call of a stream; never throws (a call not recorded cannot be resumed after a restart). */
export function recordStreamedCall(
  log: EventLog,
  where: { readonly hash: string; readonly stream: string; readonly tenant?: string },
  call: StreamedCall,
  logger?: Logger,
): void {
  log
    .append({
      type: MCP_STREAM_CALL_EVENT,
      data: { session: where.hash, stream: where.stream, ...call },
      causation: streamCausation(where.hash, where.stream),
      ...(where.tenant === undefined ? {} : { tenant: where.tenant }),
    })
    .catch((error: unknown) => {
      logger?.warn(
        { event: 'mcp.stream_record_failed', error: String(error) },
        'mcp: stream call not recorded',
      );
    });
}

/** The recorded calls of stream `stream` of session `hash`, in order (none: `[]`). */
export async function streamedCalls(
  log: EventLog,
  hash: string,
  stream: string,
  signal?: AbortSignal,
): Promise<StreamedCall[]> {
  const events = await log.read({
    causation: streamCausation(hash, stream),
    type: MCP_STREAM_CALL_EVENT,
    limit: MAX_CALLS,
    ...(signal === undefined ? {} : { signal }),
  });
  return events.flatMap((event) => callOf(event.data) ?? []);
}
