/**
 * The store layer: the event log (DESIGN D9), projections and the artifact store, and the
 * store seam a node is configured with (`StoreFactory`: `sqliteStore()`, `memoryStore()`).
 */
export {
  CONTENT_URI_PREFIX,
  MAX_WORKSPACE_URI_LENGTH,
  WORKSPACE_SCHEME,
  contentUri,
  parseArtifactRef,
  parseWorkspaceUri,
  type ArtifactLocator,
} from './artifact-uri.js';
export type {
  ArtifactContent,
  ArtifactPutOptions,
  ArtifactReadOptions,
  ArtifactRef,
  ArtifactStore,
} from './artifacts.js';
export { fileArtifactStore, type FileArtifactStoreInit } from './file-artifact-store.js';
export {
  memoryArtifactStore,
  type MemoryArtifactStore,
  type MemoryArtifactStoreInit,
} from './memory-artifact-store.js';
export { createEventLog, type EventLogInit } from './create-event-log.js';
export { GENESIS_PREV, checkLink, recomputeCid, type LinkFault } from './event-chain.js';
export {
  DEFAULT_READ_LIMIT,
  MAX_READ_LIMIT,
  matchesFilter,
  normalizeFilter,
  normalizeRead,
  traceIdOf,
  type EventQuery,
  type NormalizedFilter,
} from './event-filter.js';
export {
  EVENT_TYPE_PATTERN,
  TRACEPARENT_PATTERN,
  assertPlainJson,
  checkEventInput,
  checkEventType,
  type CheckedInput,
} from './event-input.js';
export {
  isDamagedRow,
  type DamagedRow,
  type EventLogBackend,
  type MaybePromise,
  type ScannedRow,
} from './event-log-backend.js';
export type {
  ChainFault,
  ChainVerification,
  Event,
  EventFilter,
  EventInput,
  EventLog,
  EventLogHead,
  ReadOptions,
  SignalOptions,
  SubscribeOptions,
} from './event-log.js';
export {
  eventHandlers,
  eventOf,
  openEventLog,
  type AnyEvents,
  type EventHandlers,
  type EventMap,
  type EventMeta,
  type EventOf,
  type EventReducer,
  type EventType,
  type EventTypes,
  type TypedEventInput,
} from './event-map.js';
export { memoryEventLog, type MemoryEventLogInit } from './memory-event-log.js';
export {
  EVENT_DB_FILE,
  EVENT_DB_SCHEMA_VERSION,
  sqliteEventLog,
  type SqliteEventLog,
  type SqliteEventLogInit,
} from './sqlite-event-log.js';
export {
  PROJECTION_NAME_PATTERN,
  applyEvent,
  checkProjectionName,
  firstDifference,
  projectionDigest,
  projectionJson,
  projectionText,
  projectionVersion,
  rebuildProjection,
  type Projection,
  type ProjectionResult,
  type RebuildOptions,
} from './projection.js';
export {
  fileSnapshotStore,
  type FileSnapshotStoreInit,
  type ProjectionSnapshot,
  type SnapshotStore,
} from './projection-snapshots.js';
export { memorySnapshotStore, type MemorySnapshotStore } from './memory-snapshot-store.js';
export {
  verifyProjectionSnapshot,
  verifyProjectionText,
  verifyProjectionView,
  type ProjectionCheck,
} from './projection-verify.js';
export { projectionView, type ProjectionView, type ProjectionViewInit } from './projection-view.js';
export type { Store, StoreContext, StoreFactory, StoreLock } from './store.js';
export { sqliteStore, type SqliteStoreInit } from './sqlite-store.js';
export { memoryStore, type MemoryStoreInit } from './memory-store.js';

// Internals: exported for the other layers and the tests, but marked @internal so the published
// types leave them out (stripInternal; docs/decisions/api.md API-3). They may change in any release.
/** @internal */
export { sealEvent } from './event-chain.js';
