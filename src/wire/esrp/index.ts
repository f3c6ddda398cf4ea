/** The ESRP v1 face: request and response codecs between ESRP JSON and the core Envelope. */
export { decodeEsrpRequest, encodeEsrpRequest, esrpRequestCodec } from './request-codec.js';
export { decodeEsrpResponse, encodeEsrpResponse, esrpResponseCodec } from './response-codec.js';
export { ESRP_ERRORS, ESRP_TO_PLEXUS } from './error-table.js';
export { ESRP_EXTENSION_PREFIX, ESRP_EXTENSIONS } from './extensions.js';
export { contextFromTraceparent, traceparentFromContext } from './trace.js';
export { resultOfOutputs } from './outputs.js';
