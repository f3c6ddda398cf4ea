/**
 * The frames of `/plexus/rpc/1.0.0` (issue 15 item 5; docs/mesh.md "Direct calls"): each frame
 * is a 4-byte big-endian length, then that many bytes of UTF-8 JSON. One stream carries one
 * call:
 *
 * - caller → callee: `{"t":"call","signed":<D3 signed envelope, domain plexus/rpc/<verb>,
 *   payload the core request Envelope>,"timeoutMs"?:n,"stream"?:true}`;
 * - callee → caller: any number of `{"t":"progress","seq":n,"data":…}` (streaming calls), then
 *   exactly one of `{"t":"answer","envelope":<answer Envelope>}` (the runtime answered,
 *   `response` or `error`) or `{"t":"refused","error":<ErrorData>}` (refused before any job:
 *   bad frame, signature, trust, too large; `retryable` says whether to try again).
 *
 * A frame longer than the limit is refused without reading it (`INPUT_TOO_LARGE`).
 *
 * `/plexus/rpc/1.1.0` (`rpc-mux-frames.ts`) carries the same frames with a call id, many calls
 * per stream; this one-call-per-stream protocol stays served for older nodes (MESH-39).
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, type ErrorData } from '../../core/errors.js';
import { decodeJsonText } from '../../core/bounded-json.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';

/** The protocol id. */
export const RPC_PROTOCOL = '/plexus/rpc/1.0.0';

/** The largest frame accepted by default, bytes (the node's default body limit). */
export const DEFAULT_MAX_FRAME_BYTES = 1_048_576;

/** The length prefix, bytes. */
const PREFIX = 4;

/** A call (caller → callee). */
export interface CallFrame {
  readonly t: 'call';
  /** The D3 signed envelope whose `d` is the core request Envelope. */
  readonly signed: JsonValue;
  /** The callee's deadline for the job, ms. */
  readonly timeoutMs?: number;
  /** True: send progress frames. */
  readonly stream?: boolean;
}

/** One progress report of a streaming call. */
export interface ProgressFrame {
  readonly t: 'progress';
  readonly seq: number;
  readonly data: JsonValue;
}

/** The runtime's answer. */
export interface AnswerFrame {
  readonly t: 'answer';
  readonly envelope: Envelope;
  /** The runtime refused before any job existed, for a retryable reason: the caller may retry. */
  readonly beforeJob?: true;
}

/** A refusal before any job existed. */
export interface RefusedFrame {
  readonly t: 'refused';
  readonly error: ErrorData;
}

/** Any frame. */
export type RpcFrame = CallFrame | ProgressFrame | AnswerFrame | RefusedFrame;

/** The bytes of `frame` (of either protocol, `rpc-mux-frames.ts`): length prefix and JSON. */
export function encodeFrame(frame: RpcFrame | { readonly t: string; readonly id?: number }): Uint8Array {
  // one buffer, the text written straight into it after its length (no intermediate copy)
  const text = JSON.stringify(frame);
  const length = Buffer.byteLength(text, 'utf8');
  const out = Buffer.allocUnsafeSlow(PREFIX + length); // its own memory: senders may keep it
  out.writeUInt32BE(length, 0);
  out.write(text, PREFIX, 'utf8');
  return out;
}

/** Cuts a byte stream into frame bodies. */
export interface FrameReader {
  /**
   * Adds received bytes and returns the frames they complete, decoded as JSON values.
   * @throws PlexusError `INPUT_TOO_LARGE` when a frame announces more than the limit;
   *   `PARSE_ERROR` / `INVALID_PARAMS` when a frame is not bounded JSON.
   */
  push(chunk: Uint8Array): unknown[];
  /** Bytes held of an incomplete frame. */
  readonly pending: number;
}

/** Creates a reader refusing frames over `maxFrameBytes`. */
export function frameReader(maxFrameBytes: number): FrameReader {
  let buffer = new Uint8Array(0);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return {
    get pending() {
      return buffer.byteLength;
    },
    push(chunk) {
      const joined = new Uint8Array(buffer.byteLength + chunk.byteLength);
      joined.set(buffer, 0);
      joined.set(chunk, buffer.byteLength);
      buffer = joined;
      const frames: unknown[] = [];
      while (buffer.byteLength >= PREFIX) {
        const length = new DataView(buffer.buffer, buffer.byteOffset).getUint32(0, false);
        if (length > maxFrameBytes) {
          throw new PlexusError(
            'INPUT_TOO_LARGE',
            `an rpc frame of ${length} bytes is over this node's ${maxFrameBytes}-byte limit`,
            { details: { limit: maxFrameBytes, length } },
          );
        }
        if (buffer.byteLength < PREFIX + length) break;
        const body = buffer.subarray(PREFIX, PREFIX + length);
        buffer = buffer.slice(PREFIX + length);
        let text: string;
        try {
          text = decoder.decode(body);
        } catch (cause) {
          throw new PlexusError('PARSE_ERROR', 'an rpc frame is not UTF-8', { cause });
        }
        frames.push(decodeJsonText(text, { what: 'the rpc frame' }));
      }
      return frames;
    },
  };
}

/**
 * Reads a call frame.
 * @throws PlexusError `INVALID_REQUEST` naming what is wrong.
 */
export function callFrameOf(value: unknown): CallFrame {
  if (!isJsonObject(value) || value['t'] !== 'call') {
    throw new PlexusError('INVALID_REQUEST', 'the first rpc frame must be {"t":"call","signed":…}', {
      details: { field: 't' },
    });
  }
  const { signed, timeoutMs, stream } = value;
  if (signed === undefined) {
    throw new PlexusError('INVALID_REQUEST', 'the call frame has no "signed" envelope', {
      details: { field: 'signed' },
    });
  }
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && (timeoutMs as number) >= 1)) {
    throw new PlexusError('INVALID_REQUEST', 'the call frame\'s "timeoutMs" must be a whole number ≥ 1', {
      details: { field: 'timeoutMs' },
    });
  }
  if (stream !== undefined && typeof stream !== 'boolean') {
    throw new PlexusError('INVALID_REQUEST', 'the call frame\'s "stream" must be a boolean', {
      details: { field: 'stream' },
    });
  }
  return {
    t: 'call',
    signed,
    ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs as number }),
    ...(stream === undefined ? {} : { stream }),
  };
}
