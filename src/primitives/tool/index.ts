/**
 * The Hyperspace tool primitive (seed 003 §4.3): tools registered against Plexus verbs,
 * discovered by text, capability, reputation, latency and region, invoked through the
 * runtime, with event-sourced analytics.
 */
export {
  TOOL_PROJECTIONS,
  toolPrimitive,
  type ToolCall,
  type ToolCallOptions,
  type ToolComponents,
  type ToolInit,
} from './tool-primitive.js';
export { runtimeToolCall, toolCallKey } from './tool-call.js';
export {
  GEO_EXTENSION,
  MAX_DISCOVERED_VERBS,
  REMOTE_TOOL_PREFIX,
  REMOTE_TOOL_STATS_PROJECTION_NAME,
  registryRemoteTools,
  remoteRecord,
  remoteToolId,
  peerToolId,
  remoteToolStatsProjection,
  type RemoteTool,
  type RemoteToolSource,
  type RemoteToolStats,
  type RemoteToolStatsState,
} from './remote-tools.js';
export { toolFailure, type FailedTool } from './tool-failure.js';
export {
  DEFAULT_PRIOR_WEIGHT,
  TOOL_EVENTS,
  TOOL_REGISTRY_PROJECTION_NAME,
  avgLatencyOf,
  reputationOf,
  successRateOf,
  toolRegistryProjection,
  type ReputationOptions,
  type ToolInvokedData,
  type ToolRecord,
  type ToolRegisteredData,
  type ToolRegistryState,
  type ToolSchema,
} from './tool-projection.js';
export {
  discoverTools,
  latencyOf,
  matchesGeo,
  matchesText,
  rankTools,
  toolInfo,
  words,
  type ToolQuery,
} from './tool-search.js';
