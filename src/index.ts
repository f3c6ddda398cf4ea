/**
 * Plexus: one agent mesh for the Emergence, ESRP, AGENTESE, Hyperspace and Nova26 protocols.
 *
 * The package root is the small public API (docs/decisions/api.md, API-1): the SDK
 * (`agent`, `verb`, `createPlexus`, `remoteClient`, …), `createNode` with its init and config
 * types, the core records (types) and the error type with {@link isPlexusError}. Each layer is
 * reachable in full through its subpath export: `plexus/core`, `plexus/security`,
 * `plexus/wire`, `plexus/store`, `plexus/runtime`, `plexus/primitives`, `plexus/node`,
 * `plexus/sdk`. test/public-api.test.ts pins the list of values exported here.
 */

// The SDK: define verbs and agents, host them, invoke, compose, query, subscribe.
export * from './sdk/index.js';

// A node assembled from its init (or from plexus.yaml through `plexus/node`).
export {
  createNode,
  type LimitsConfig,
  type Node,
  type NodeConfig,
  type NodeInit,
  type NodeStopOptions,
  type NodeStoreKind,
  type PeerConfig,
  type TlsConfig,
} from './node/index.js';
export type { Logger } from './core/logger.js';

// The error type, recognised across bundled copies by its `Symbol.for('plexus.error')` brand.
export {
  ERROR_CODES,
  isPlexusError,
  isPlexusErrorCode,
  PlexusError,
  type ErrorData,
  type ErrorHints,
  type PlexusErrorCode,
  type PlexusErrorInit,
} from './core/index.js';

// The core records and JSON types (their schemas, parsers and validators: `plexus/core`).
export type {
  AgentCapability,
  AgentCard,
  AgentEndpoint,
  AgentOrigin,
  AgentTier,
  EffectName,
  Effects,
  Envelope,
  EnvelopeKind,
  EnvelopeSignature,
  Event,
  Job,
  JobArtifact,
  JobState,
  JobTiming,
  JsonObject,
  JsonPrimitive,
  JsonValue,
  ProjectionHints,
  VerbCategory,
  VerbDeprecation,
  VerbName,
  VerbSpec,
  VerbVersion,
} from './core/index.js';
