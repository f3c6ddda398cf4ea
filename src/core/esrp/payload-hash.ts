/**
 * The ESRP `payload_hash` (DESIGN D1): SHA-256 hex of the `esrp` canonical form of
 * `{target: {service, operation, variant|null}, inputs: [{name, content_type, data, encoding, metadata}], params}`.
 * It is the default idempotency key (D5).
 */
import { canonicalizeEsrp, type EsrpJsonValue } from '../canonical/esrp.js';
import { sha256Hex } from '../hash.js';
import type { EsrpInput, EsrpRequest, EsrpTarget } from './model.js';

/**
 * The object the payload hash is computed over: the target with `variant` (`null` when
 * absent), the inputs reduced to their five hashed fields, and the params.
 */
export function payloadObject(
  target: EsrpTarget,
  inputs: readonly EsrpInput[],
  params: EsrpJsonValue,
): { target: EsrpJsonValue; inputs: EsrpJsonValue; params: EsrpJsonValue } {
  // Keys in canonical order, so the canonical writer has nothing to sort (Perf-P6-003).
  return {
    inputs: inputs.map((i) => ({
      content_type: i.content_type,
      data: i.data,
      encoding: i.encoding,
      metadata: i.metadata,
      name: i.name,
    })),
    params,
    target: { operation: target.operation, service: target.service, variant: target.variant ?? null },
  };
}

/**
 * The payload hash of `target`, `inputs` and `params`.
 *
 * @throws PlexusError `INVALID_PARAMS` when a value cannot be canonicalised (a non-integer number).
 */
export function derivePayloadHash(
  target: EsrpTarget,
  inputs: readonly EsrpInput[],
  params: EsrpJsonValue,
): string {
  return sha256Hex(canonicalizeEsrp(payloadObject(target, inputs, params)));
}

/**
 * The payload hash of a typed request.
 *
 * @throws PlexusError `INVALID_PARAMS` as {@link derivePayloadHash}.
 */
export function payloadHash(request: EsrpRequest): string {
  return derivePayloadHash(request.target, request.inputs, request.params);
}
