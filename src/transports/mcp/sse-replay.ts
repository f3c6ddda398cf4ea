/**
 * Resumable SSE streams of one MCP session (issue 13 item 1, MCP 2025-11-25 "Resumability and
 * Redelivery"; docs/decisions/mcp.md MCP-15, MCP-57). Every stream the session opens — the reply
 * stream of a POST, the GET stream — has a random key (`p` or `g` and 16 hex digits, so a key
 * names its stream across a restart too); every event sent on it carries the id
 * `<key>-<n>` (`n` counts the session's events), and the first event of a stream is a
 * priming event (an id, no data) so a client cut before any message can still resume. The
 * last {@link MCP_REPLAY_EVENTS} events of the session are kept. A stream whose connection
 * drops keeps running: its events go to the buffer, and a `GET` with `Last-Event-ID` attaches
 * a new connection to that stream, which first gets the buffered events after the id, then
 * what follows; a POST's stream ends after its last answer, as before.
 */
import { randomBytes } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PlexusError } from '../../core/errors.js';
import type { MessageSink } from './session-transport.js';

/** Events kept per session for replay. */
export const MCP_REPLAY_EVENTS = 1000;

/** Where a stream's frames go while a client is connected. */
export interface StreamConnection {
  write(frame: string): void;
  end(): void;
}

/** The SSE frame of `message` with event id `id`. */
export function sseFrame(id: string, message: JSONRPCMessage): string {
  return `id: ${id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function isResponse(message: JSONRPCMessage): boolean {
  return 'id' in message && !('method' in message);
}

/** What a stream key starts with: `p` a POST's reply stream, `g` the GET stream. */
export type StreamKind = 'p' | 'g';

/** A new stream key of `kind`. */
export function newStreamKey(kind: StreamKind): string {
  return `${kind}${randomBytes(8).toString('hex')}`;
}

const EVENT_ID = /^([pg][0-9a-f]{16})-(\d{1,15})$/;

/** The stream key and event number of a `Last-Event-ID`, or `undefined` when it is not one of ours. */
export function parseEventId(lastEventId: string): { key: string; kind: StreamKind; n: number } | undefined {
  const match = EVENT_ID.exec(lastEventId);
  if (match === null) return undefined;
  const key = match[1] as string;
  return { key, kind: key[0] as StreamKind, n: Number(match[2]) };
}

function notResumable(): PlexusError {
  return new PlexusError(
    'INVALID_REQUEST',
    'Last-Event-ID names no stream of this session that can be resumed: open a new stream (GET without it)',
  );
}

interface Kept {
  readonly stream: ReplayStream;
  readonly n: number;
  readonly message: JSONRPCMessage;
}

/** One stream of a session (a POST's reply stream, or the GET stream). */
export class ReplayStream implements MessageSink {
  readonly streams = true;
  #connection: StreamConnection | undefined;
  #waiting: number | undefined;
  #finished = false;
  /** Events of this stream still in the buffer. */
  kept = 0;
  /** The highest event number of this stream dropped from the buffer (0: none). */
  dropped = 0;

  constructor(
    readonly key: string,
    private readonly replay: SessionReplay,
    waiting: number | undefined,
  ) {
    this.#waiting = waiting;
  }

  /** True when every answer of a POST's stream was sent (never for the GET stream). */
  get finished(): boolean {
    return this.#finished;
  }

  /** True while a client connection is attached. */
  get connected(): boolean {
    return this.#connection !== undefined;
  }

  /** Sends `message` on the stream (kept for replay, written when a connection is attached). */
  write(message: JSONRPCMessage): void {
    if (this.#finished) return;
    const n = this.replay.keep(this, message);
    this.#connection?.write(sseFrame(`${this.key}-${n}`, message));
    if (this.#waiting !== undefined && isResponse(message) && --this.#waiting === 0) {
      this.#finished = true;
      this.#connection?.end();
      this.#connection = undefined;
    }
  }

  /**
   * Attaches `connection`: with `after` (an event number of this stream) the kept events after
   * it are written first; without, a priming event. A finished stream then ends it.
   */
  attach(connection: StreamConnection, after?: number): void {
    this.#connection?.end();
    this.#connection = connection;
    if (after === undefined) connection.write(`id: ${this.key}-${this.replay.next()}\ndata: \n\n`);
    else
      for (const e of this.replay.after(this, after))
        connection.write(sseFrame(`${e.stream.key}-${e.n}`, e.message));
    if (this.#finished) {
      connection.end();
      this.#connection = undefined;
    }
  }

  /** Detaches `connection` (it closed) when it is the attached one. */
  detach(connection: StreamConnection): void {
    if (this.#connection === connection) this.#connection = undefined;
  }
}

/** The replay state of one session. */
export class SessionReplay {
  readonly #streams = new Map<string, ReplayStream>();
  readonly #kept: Kept[] = [];
  #head = 0;
  #events = 0;
  #standalone: ReplayStream | undefined;

  constructor(private readonly limit: number = MCP_REPLAY_EVENTS) {}

  /**
   * A new POST reply stream that finishes after `waiting` answers; `key`: the key of a stream
   * of this session recovered from the log after a restart (MCP-57), else a new one.
   */
  open(waiting: number, key: string = newStreamKey('p')): ReplayStream {
    const stream = new ReplayStream(key, this, waiting);
    this.#streams.set(stream.key, stream);
    return stream;
  }

  /** The session's GET stream, once a GET opened it. */
  get standaloneStream(): ReplayStream | undefined {
    return this.#standalone;
  }

  /** The session's GET stream (made at the first GET). */
  standalone(): ReplayStream {
    if (this.#standalone === undefined) {
      this.#standalone = new ReplayStream(newStreamKey('g'), this, undefined);
      this.#streams.set(this.#standalone.key, this.#standalone);
    }
    return this.#standalone;
  }

  /**
   * The stream and event number `lastEventId` names; `{missing}` (the key and its kind) for a
   * well-formed id whose stream this process does not have — one of a previous process, which
   * the caller looks for in the log (MCP-57).
   * @throws PlexusError `INVALID_REQUEST` for an id that is not one of ours, or whose events
   *   are no longer kept (the client must start over).
   */
  resume(
    lastEventId: string,
  ): { stream: ReplayStream; after: number } | { missing: { key: string; kind: StreamKind } } {
    const parsed = parseEventId(lastEventId);
    if (parsed === undefined) throw notResumable();
    const stream = this.#streams.get(parsed.key);
    if (stream === undefined) return { missing: { key: parsed.key, kind: parsed.kind } };
    const after = parsed.n;
    if (!(after <= this.#events) || stream.dropped > after) throw notResumable();
    return { stream, after };
  }

  /** The next event number. */
  next(): number {
    return ++this.#events;
  }

  /** Keeps `message` of `stream`; returns its event number. */
  keep(stream: ReplayStream, message: JSONRPCMessage): number {
    const n = this.next();
    this.#kept.push({ stream, n, message });
    stream.kept++;
    if (this.#kept.length - this.#head > this.limit) this.#evict();
    return n;
  }

  /** The kept events of `stream` after event number `after`, in order. */
  after(stream: ReplayStream, after: number): Kept[] {
    const out: Kept[] = [];
    for (let i = this.#head; i < this.#kept.length; i++) {
      const e = this.#kept[i] as Kept;
      if (e.stream === stream && e.n > after) out.push(e);
    }
    return out;
  }

  #evict(): void {
    const old = this.#kept[this.#head] as Kept;
    this.#head++;
    old.stream.dropped = old.n;
    if (--old.stream.kept === 0 && old.stream.finished) this.#streams.delete(old.stream.key);
    if (this.#head > this.limit) {
      this.#kept.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
