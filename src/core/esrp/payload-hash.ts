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
  return {
    target: { service: target.service, operation: target.operation, variant: target.variant ?? null },
    inputs: inputs.map((i) => ({
      name: i.name,
      content_type: i.content_type,
      data: i.data,
      encoding: i.encoding,
      metadata: i.metadata,
    })),
    params,
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
