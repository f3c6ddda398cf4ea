/**
 * Every wire codec by format name, and the helpers that read a wire message from text in
 * the way its format needs (ESRP judges numbers on their source text, so it is parsed
 * losslessly; every other format uses the plain JSON parser).
 */
import { decodeJsonText } from '../core/bounded-json.js';
import type { Problem } from '../core/problem.js';
import { agenteseCodec } from './agentese/index.js';
import type { WireCodec, WireFormat } from './codec.js';
import { emergenceCodec } from './emergence/index.js';
import { esrpRequestCodec, esrpResponseCodec } from './esrp/index.js';
import { jsonRpcCodec, validateJsonRpc } from './jsonrpc/index.js';
import { novaCodec } from './nova/index.js';

/** The codec of each wire format. */
export const WIRE_CODECS: { readonly [F in WireFormat]: WireCodec<unknown> } = {
  emergence: emergenceCodec,
  'esrp-request': esrpRequestCodec,
  'esrp-response': esrpResponseCodec,
  jsonrpc: jsonRpcCodec,
  nova: novaCodec,
  agentese: agenteseCodec,
};

/** The codec of `format`. */
export function codecFor(format: WireFormat): WireCodec<unknown> {
  return WIRE_CODECS[format];
}

/**
 * Parses wire text the way `format` needs: losslessly for the ESRP formats (so non-integer
 * numbers and integers beyond 2^53 can be judged on their source text), natively otherwise.
 * With no format, parses natively. Every format goes through the bounded decoder
 * (`core/bounded-json.ts`): nesting past `MAX_JSON_DEPTH` is refused before parsing, and
 * a value the event log could not record (a lone surrogate, a number that overflows) after.
 *
 * @throws PlexusError `PARSE_ERROR` naming the line and column where the text breaks;
 *   `INVALID_REQUEST` for nesting past the limit; `INVALID_PARAMS` (with `details.pointer`)
 *   for a value the log cannot record.
 */
export function parseWireText(text: string, format?: WireFormat): unknown {
  return decodeJsonText(text, { lossless: format === 'esrp-request' || format === 'esrp-response' });
}

/**
 * Every problem of a parsed wire message in `format`. JSON-RPC accepts a batch as well as a
 * single message; a batch's problems are located under `/<index>`.
 */
export function validateWire(value: unknown, format: WireFormat): Problem[] {
  return format === 'jsonrpc' ? validateJsonRpc(value) : codecFor(format).validate(value);
}
