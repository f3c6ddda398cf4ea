/**
 * Node-to-node calls (issue 3 item 5): the receiving route `POST /v1/peer/invoke`, the
 * sending `RemoteInvoker` (signed envelopes, D3; retries, D4), and the peer directory that
 * keeps peers' agents in the registry with origin `remote`; and the HTTP peer transport the
 * router (`runtime/routing`) uses for `http(s)://` targets.
 */
export {
  PEER_AGENTS_PATH,
  PEER_EXTENSION,
  PEER_INVOKE_PATH,
  PEER_TIMEOUT_HEADER,
  normalizePeerUrl,
  peerDid,
  trustSet,
  tryPeerDid,
  type PeerConfig,
} from './peer-config.js';
export {
  nextPollDelay,
  peerDirectory,
  type PeerDirectory,
  type PeerDirectoryInit,
  type PeerStatus,
} from './peer-directory.js';
export { realPollTimer, type PollTimer } from './poll-timer.js';
export { httpPeerTransport, type HttpPeerTransportInit } from './peer-transport.js';
export { peerRemoteInvoker, type PeerRemoteInvokerInit, type PeerResolver } from './peer-invoker.js';
export { PEER_FACE, PEER_PRINCIPAL_KIND, registerPeerRoutes, type PeerRoutesInit } from './peer-routes.js';
export { admitPeerSigner, untrustedSigner } from './peer-admission.js';
export { peerFace, type PeerFaceInit } from './peer-face.js';
export {
  RETRYABLE_STATUSES,
  answerEnvelopeOf,
  errorDataOf,
  httpStatusOf,
  peerErrorBody,
  withDetails,
  type PeerErrorBody,
} from './peer-wire.js';
export {
  DEFAULT_RETRY_DELAYS_MS,
  DEFAULT_RETRY_JITTER,
  abortableSleep,
  jittered,
  retrySchedule,
  type PeerRetryInit,
  type RetrySchedule,
} from './retry.js';
