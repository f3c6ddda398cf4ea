/**
 * The envelope extension keys the ESRP codecs use for what the core Envelope has no field
 * for, so that encoding a decoded message gives back the same ESRP message.
 */

/** Extension keys of the ESRP face; every one starts with `_x_esrp_`. */
export const ESRP_EXTENSIONS = {
  /** Request: the whole `caller` object. */
  caller: '_x_esrp_caller',
  /** Request: the whole `target` object (keeps `variant` and the exact service/operation split). */
  target: '_x_esrp_target',
  /** Request: `mode` after defaults (`{type, timeout_ms}`). */
  mode: '_x_esrp_mode',
  /** Request: the whole `context` object (the span id does not fit a W3C traceparent). */
  context: '_x_esrp_context',
  /** Request: `idempotency_key`. */
  idempotencyKey: '_x_esrp_idempotency_key',
  /** Request: `payload_hash` as sent. */
  payloadHash: '_x_esrp_payload_hash',
  /** Request: `params_schema_ref`. */
  paramsSchemaRef: '_x_esrp_params_schema_ref',
  /** Response: `timing`. */
  timing: '_x_esrp_timing',
  /** Failed response: `outputs`, when not empty. */
  outputs: '_x_esrp_outputs',
  /** Failed response: `artifacts`, when not empty. */
  artifacts: '_x_esrp_artifacts',
  /** Failed response: `job`. */
  job: '_x_esrp_job',
} as const;

/** The prefix every ESRP extension key starts with. */
export const ESRP_EXTENSION_PREFIX = '_x_esrp_';
