/** ESRP v1: the typed request/response model, the reference's typed parse, validation and `payload_hash`. */
export {
  ESRP_ARTIFACT_KINDS,
  ESRP_DEFAULT_TIMEOUT_MS,
  ESRP_ENCODINGS,
  ESRP_ERROR_CODES,
  ESRP_JOB_STATES,
  ESRP_MODE_TYPES,
  ESRP_RETENTIONS,
  ESRP_RETRY_STRATEGIES,
  ESRP_STATUSES,
  ESRP_VERSION,
  type EsrpArtifact,
  type EsrpArtifactKind,
  type EsrpCaller,
  type EsrpContext,
  type EsrpEncoding,
  type EsrpError,
  type EsrpErrorCode,
  type EsrpInput,
  type EsrpJob,
  type EsrpJobState,
  type EsrpMode,
  type EsrpModeType,
  type EsrpOutput,
  type EsrpRequest,
  type EsrpResponse,
  type EsrpRetention,
  type EsrpRetryStrategy,
  type EsrpStatus,
  type EsrpTarget,
  type EsrpTiming,
} from './model.js';
export {
  canonicalizeEsrpRequest,
  esrpRequestHash,
  parseEsrpRequest,
  readEsrpRequest,
  validateEsrpRequest,
  type EsrpReadResult,
} from './request.js';
export { ESRP_ERROR_TABLE, type EsrpErrorRow } from './error-table.js';
export { parseEsrpResponse, readEsrpResponse, validateEsrpResponse } from './response.js';
export { derivePayloadHash, payloadHash, payloadObject } from './payload-hash.js';
export {
  canonicalizeEsrpDocumentText,
  canonicalizeEsrpRequestText,
  parseEsrpRequestText,
  parseEsrpResponseText,
  payloadHashText,
} from './text.js';
export { esrpVersionProblem, isBase64 } from './rules.js';
export { normalizeUuid, isCanonicalUuid } from './uuid.js';
export { normalizeTimestamp, timestampToMillis } from './timestamp.js';
export { WORKSPACE_URI_PREFIX, workspaceUriProblem } from './workspace-uri.js';
