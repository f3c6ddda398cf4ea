/**
 * The node layer: a Plexus node assembled from configuration — data directory, node key,
 * event log, artifacts, runtime, authenticator and every face on one port — with its
 * lifecycle, plus the demo agents.
 */
export {
  DEFAULT_CONFIG_FILE,
  loadNodeConfig,
  parseNodeConfig,
  parseNodeConfigText,
  type LimitsConfig,
  type NodeConfig,
  type NodeStoreKind,
  type PeerConfig,
  type TlsConfig,
} from './config.js';
export {
  DEMO_AGENT_IDS,
  DEMO_VERBS,
  MAX_SLOW_SECONDS,
  MAX_SLOW_STEPS,
  MAX_SUMMARY_TEXT,
  calculatorAgent,
  demoAgents,
  echoAgent,
  slowAgent,
  summarizerAgent,
  type DemoVerbInfo,
} from './demo-agents.js';
export { MAX_EXPRESSION_DEPTH, MAX_EXPRESSION_LENGTH, evaluateExpression } from './demo/math-expression.js';
export { MAX_SUMMARY_SENTENCES, splitSentences, summarize, type Summary } from './demo/summarize.js';
export { createNode, type Node, type NodeStopOptions } from './node.js';
export { defaultFaces } from './faces.js';
export type {
  Face,
  FaceComponents,
  FaceFactory,
  FaceReadiness,
  FaceServer,
  FaceServerOptions,
  UpgradeHandler,
} from '../transports/face.js';
export {
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_DATA_DIR,
  DEFAULT_DRAIN_MS,
  DEFAULT_HOST,
  DEFAULT_PORT,
  nodeInitFromConfig,
  resolveNodeInit,
  type NodeInit,
  type ResolvedNodeInit,
} from './node-init.js';
export { NODE_KEY_FILE, loadOrCreateNodeKey, nodeKeyPath, type NodeKey } from './node-key.js';
export {
  NODE_PROJECTIONS,
  jobsOfDataDir,
  replayDataDir,
  replayLog,
  withDataDirLog,
  type ReplayCheck,
  type ReplayReport,
  type ReplayedProjection,
} from './data-dir-replay.js';
export {
  HYPERSPACE_PRIMITIVES,
  HYPERSPACE_PROJECTIONS,
  checkPrimitiveNames,
  hyperspaceHost,
  type HyperspaceComponents,
  type HyperspaceHost,
  type HyperspacePrimitiveName,
} from './primitive-host.js';
