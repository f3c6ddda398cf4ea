/**
 * The SDK `Transport` of one MCP session (issue 13 item 1, docs/decisions/mcp.md MCP-1): the
 * face's own Streamable HTTP glue hands it each POSTed message with the sink its answer goes
 * to (a JSON body or the POST's SSE stream); a response goes to the sink of its request, a
 * notification related to a request to that request's sink when it streams, anything else to
 * the session's GET stream once one was opened (kept for replay while its connection is away,
 * MCP-15). Before the first GET, the latest notification of each
 * method is held (at most one per method: `notifications/tools/list_changed` is the one that
 * matters) and sent when a GET stream opens. A server request related to a call (elicitation,
 * sampling, MCP-50) turns a JSON reply that has sent nothing yet into an SSE stream and goes
 * there; one with nowhere to go is refused at once, so the SDK's request fails instead of
 * waiting for an answer that cannot come.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Where the messages for one POST (or the GET stream) go. */
export interface MessageSink {
  /** True when the sink can carry messages before the answer (an SSE stream). */
  readonly streams: boolean;
  /** The stream's key, when the sink is a resumable SSE stream (MCP-15, MCP-57). */
  readonly key?: string;
  /** Writes one message. */
  write(message: JSONRPCMessage): void;
  /**
   * A JSON sink that can still become a stream (nothing sent yet, the client takes SSE): turns
   * its reply into an SSE stream and answers it, or `undefined` when it cannot (MCP-50).
   */
  upgrade?(): MessageSink | undefined;
}

function responseId(message: JSONRPCMessage): RequestId | undefined {
  return 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
}

/** The transport of one session; one SDK `Server` is connected to it. */
export class SessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly #pending = new Map<RequestId, MessageSink>();
  #standalone: MessageSink | undefined;
  readonly #held = new Map<string, JSONRPCMessage>();
  #closed = false;

  constructor(readonly sessionId: string) {}

  /** Nothing to open: the HTTP server is the node's. */
  start(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Hands a POSTed message to the server; a request's answer will go to `sink`. `trace` is
   * the span the POST is served in (W3C `traceparent`, and the `tracestate` it came with): the
   * handlers read them from the request's `requestInfo.headers`, beside the message's own
   * `_meta.traceparent` / `_meta.tracestate`.
   */
  receive(
    message: JSONRPCMessage,
    sink: MessageSink | undefined,
    trace?: { readonly traceparent: string; readonly tracestate?: string },
  ): void {
    if (sink !== undefined && 'method' in message && 'id' in message) this.#pending.set(message.id, sink);
    if (trace === undefined) this.onmessage?.(message);
    else {
      const { traceparent, tracestate } = trace;
      this.onmessage?.(message, {
        requestInfo: { headers: { traceparent, ...(tracestate === undefined ? {} : { tracestate }) } },
      });
    }
  }

  /** Sets (or clears) the session's GET stream. */
  standalone(sink: MessageSink | undefined): void {
    this.#standalone = sink;
    if (sink === undefined) return;
    const held = [...this.#held.values()];
    this.#held.clear();
    for (const message of held) sink.write(message);
  }

  /** Where the answer to request `id` goes, while it runs. */
  sinkOf(id: RequestId): MessageSink | undefined {
    return this.#pending.get(id);
  }

  /** True when a GET stream is open. */
  hasStandalone(): boolean {
    return this.#standalone !== undefined;
  }

  /** Routes one outgoing message (see the module comment). */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const id = responseId(message);
    if (id !== undefined) {
      const sink = this.#pending.get(id);
      this.#pending.delete(id);
      sink?.write(message);
      return Promise.resolve();
    }
    const related = options?.relatedRequestId;
    let sink = related === undefined ? undefined : this.#pending.get(related);
    if (
      related !== undefined &&
      sink !== undefined &&
      !sink.streams &&
      'method' in message &&
      'id' in message
    ) {
      const upgraded = sink.upgrade?.();
      if (upgraded !== undefined) {
        this.#pending.set(related, upgraded);
        sink = upgraded;
      }
    }
    if (sink?.streams === true) sink.write(message);
    else if (this.#standalone !== undefined) this.#standalone.write(message);
    else if ('method' in message && 'id' in message) {
      return Promise.reject(
        new Error(
          `no stream to the MCP client is open for ${message.method}: its call is answered as JSON and there is no GET stream`,
        ),
      );
    } else if ('method' in message) this.#held.set(message.method, message);
    return Promise.resolve();
  }

  /** Closes the transport (the session ends): the server is told once. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    // requests still running are answered: their POST would wait for ever otherwise
    for (const [id, sink] of this.#pending) {
      sink.write({ jsonrpc: '2.0', id, error: { code: -32001, message: 'the MCP session ended' } });
    }
    this.#pending.clear();
    this.#standalone = undefined;
    this.#held.clear();
    this.onclose?.();
    return Promise.resolve();
  }
}
