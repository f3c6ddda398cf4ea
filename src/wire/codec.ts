/**
 * The contract every wire codec fulfils: validate a parsed wire message, decode it to the
 * core {@link Envelope}, and encode an Envelope back.
 */
import type { Envelope } from '../core/envelope.js';
import type { Problem } from '../core/problem.js';

/** The wire formats Plexus reads and writes. */
export const WIRE_FORMATS = [
  'emergence',
  'esrp-request',
  'esrp-response',
  'jsonrpc',
  'nova',
  'agentese',
] as const;

/** One of {@link WIRE_FORMATS}. */
export type WireFormat = (typeof WIRE_FORMATS)[number];

/**
 * A codec between one wire format and the core Envelope.
 *
 * `decode(encode(e))` is equivalent to `e` for every envelope the format can express, and
 * `encode(decode(w))` equals `w` (after the format's own normalisation) for every valid `w`.
 */
export interface WireCodec<Wire> {
  /** The format this codec speaks. */
  readonly format: WireFormat;
  /** Every problem in `input`, each with its JSON pointer; empty when `input` is valid. */
  validate(input: unknown): Problem[];
  /**
   * Decodes a valid wire message.
   * @throws PlexusError with the format's error code and `details.problems` when invalid.
   */
  decode(input: unknown): Envelope;
  /**
   * Encodes an envelope in this format.
   * @throws PlexusError `INVALID_PARAMS` when the envelope cannot be expressed in the format.
   */
  encode(envelope: Envelope): Wire;
}
