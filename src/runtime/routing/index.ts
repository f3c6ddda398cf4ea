/**
 * Routing (seed 002 Part VI): logical targets, the transport contract, fallback policies as
 * data, the answer cache behind `local-cache`, the `queue-for-sync` delivery loop, and trace
 * context across hops — assembled as the runtime's `RemoteInvoker` by {@link routingInvoker}.
 */
export {
  ANSWER_CACHE_MAX,
  ANSWER_CACHE_PROJECTION_NAME,
  ROUTING_EVENTS,
  answerCacheProjection,
  answerKey,
  applyAnswerEvent,
  type AnswerCacheState,
  type AnswerCachedData,
  type CachedAnswer,
} from './answer-cache.js';
export {
  FALLBACK_ANSWER_EXTENSION,
  isFallbackAnswer,
  queuedAnswer,
  staleAnswer,
} from './fallback-answers.js';
export { localTransport } from './local-transport.js';
export {
  BUILTIN_STEPS,
  DEFAULT_POLICY,
  fallbackPolicies,
  type FallbackConfig,
  type FallbackPolicies,
  type FallbackStep,
  type SelectedPolicy,
} from './policy.js';
export { SYNC_EXTENSION, isDeliveryFailure, outgoing } from './delivery.js';
export { SENT_DETAIL, isRefusedConnection, wasNeverSent } from './unsent.js';
export { routingInvoker, type RoutingInvoker, type RoutingInvokerInit } from './routing-invoker.js';
export {
  isSyncDelivery,
  syncQueue,
  type QueueForSyncInit,
  type SyncQueue,
  type SyncQueueComponents,
} from './sync-queue.js';
export {
  A2A_BRIDGE_EXTENSION,
  FALLBACK_POLICY_EXTENSION,
  MCP_BRIDGE_EXTENSION,
  PENDING_SCHEMES,
  REMOTE_MESH_PEER_EXTENSION,
  REMOTE_PEER_EXTENSION,
  ROUTED_SCHEMES,
  SUPPORTED_TARGETS,
  TARGET_EXTENSION,
  matchPeer,
  parseTarget,
  pendingTransportError,
  policyNameOf,
  targetOf,
  targetUrl,
  type RouteTarget,
} from './target.js';
export { PARENT_SPAN_EXTENSION, asChildSpan, childSpan, newSpanId } from './trace.js';
export { transportFor, type RouteRequest, type RouteTransport } from './transport.js';
export { routeTransportSet, type RouteTransportSet } from './transport-set.js';
