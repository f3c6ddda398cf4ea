/**
 * The HTTP faces of a node (DESIGN §3 `transports/http`; D4, D5, D10, D14, D15): ESRP,
 * Emergence, discovery and health routes on the node's fastify server.
 */
export { registerHttpFaces } from './http-faces.js';
export { esrpFace, type EsrpFaceInit } from './esrp-face.js';
export { emergenceFace, type EmergenceFaceInit } from './emergence-face.js';
export { discoveryFace } from './discovery-face.js';
export { healthFace } from './health-face.js';
export { paymentFace, type PaymentFaceInit } from './payment-face.js';
export { httpFace, type HttpFaceInit } from './http-face.js';
export {
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_HEARTBEAT_MS,
  httpFacesSettings,
  type HttpFacesInit,
  type HttpFacesSettings,
} from './face-scope.js';
export { HTTP_FACES, faceOfUrl, type HttpFace } from './faces.js';
export { HTTP_STATUS, plexusCodeFromHttp } from './http-status.js';
export {
  NIL_REQUEST_ID,
  RESULT_OUTPUT_NAME,
  errorDataOf,
  esrpAcceptedAnswer,
  esrpAnswerOfInvocation,
  esrpErrorAnswer,
  esrpErrorOf,
  esrpHttpStatus,
  esrpJobOf,
  esrpOutputsOf,
  esrpRequestIdOf,
  esrpResponse,
  esrpSnapshotOfJob,
  esrpTimingOf,
  requestIdOfJob,
  type EsrpAnswer,
  type EsrpResponseParts,
} from './esrp-answer.js';
export { formatSseEvent, sseEventData } from './esrp-events.js';
export {
  UNKNOWN_PEER,
  emergenceDoneAnswer,
  emergenceErrorAnswer,
  emergenceFallbackError,
  emergenceHttpStatus,
  type EmergenceAnswer,
} from './emergence-answer.js';
export { EMERGENCE_IDEMPOTENCY_PREFIX } from './emergence-route.js';
export {
  EMERGENCE_ENDPOINT_KEY,
  emergenceEndpointOf,
  emergenceEndpointProblem,
  emergenceRemoteInvoker,
  type EmergenceRemoteInvokerInit,
} from './emergence-endpoint.js';
export { EMERGENCE_VERB_NAMESPACE, emergenceVerbName, helloCard, helpRequest } from './emergence-work.js';
export { plainErrorBody, sendFaceError, toFaceError, type ErrorContext } from './face-errors.js';
export {
  faceFrameworkErrors,
  frameworkRefusal,
  isPeerUrl,
  sendErrorForUrl,
  type FrameworkErrorsInit,
} from './framework-errors.js';
