/**
 * The frames of `/plexus/rpc/1.1.0` (issue 15 "Performance"; docs/mesh.md "Direct calls";
 * MESH-39): many calls on one long-lived stream. The frames of `/plexus/rpc/1.0.0`
 * (`rpc-frames.ts`: 4-byte big-endian length, UTF-8 JSON, the same limit) each carry the call's
 * `id`, a whole number ≥ 1 the caller chooses, unique on its stream:
 *
 * - caller → callee: `{"t":"call","id",…}` (the 1.0.0 call: `signed`, `timeoutMs`?, `stream`?)
 *   and `{"t":"cancel","id"}` (cancels the call's job; nothing more is sent for that id);
 * - callee → caller: `{"t":"progress","id",…}`, then one `{"t":"answer","id",…}` or
 *   `{"t":"refused","id","error"}`.
 *
 * A `refused` frame without `id` refuses the stream itself (a frame that cannot be read, or one
 * without a valid `id`); the callee then closes the stream and cancels its calls.
 */
import { PlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import {
  callFrameOf,
  type AnswerFrame,
  type CallFrame,
  type ProgressFrame,
  type RefusedFrame,
} from './rpc-frames.js';

/** The protocol id. */
export const RPC_MUX_PROTOCOL = '/plexus/rpc/1.1.0';

/** A call with its id (caller → callee). */
export interface MuxCallFrame extends CallFrame {
  readonly id: number;
}

/** Cancels a call (caller → callee). */
export interface CancelFrame {
  readonly t: 'cancel';
  readonly id: number;
}

/** A progress report of a call. */
export interface MuxProgressFrame extends ProgressFrame {
  readonly id: number;
}

/** The runtime's answer to a call. */
export interface MuxAnswerFrame extends AnswerFrame {
  readonly id: number;
}

/** A call refused before any job, or (without `id`) the stream refused. */
export interface MuxRefusedFrame extends RefusedFrame {
  readonly id?: number;
}

/** Any frame of the protocol. */
export type MuxFrame = MuxCallFrame | CancelFrame | MuxProgressFrame | MuxAnswerFrame | MuxRefusedFrame;

/** True for a call id: a whole number ≥ 1. */
export function isCallId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/** The call id of a received frame, or `undefined` when it has none that is valid. */
export function frameIdOf(value: unknown): number | undefined {
  if (!isJsonObject(value)) return undefined;
  const id = value['id'];
  return isCallId(id) ? id : undefined;
}

/**
 * Reads a call frame of the protocol (its id already read).
 * @throws PlexusError `INVALID_REQUEST` naming what is wrong.
 */
export function muxCallFrameOf(value: unknown, id: number): MuxCallFrame {
  return { ...callFrameOf(value), id };
}

/** The stream-level refusal: `INVALID_REQUEST` for a frame without a valid id. */
export function missingCallId(): PlexusError {
  return new PlexusError(
    'INVALID_REQUEST',
    `every frame on ${RPC_MUX_PROTOCOL} is a JSON object with "id", a whole number ≥ 1`,
    { details: { field: 'id' } },
  );
}
