/**
 * The Hyperspace memory primitive (seed 003 §4.4): the primitive, its projections, its
 * embedders, the hash ring and the vector index.
 */
export type { Embedder } from './embedder.js';
export {
  HASHED_EMBEDDER_VERSION,
  hashedEmbedder,
  idfWeight,
  tokenize,
  type HashedEmbedderInit,
} from './hashed-embedder.js';
export { RING_DEFAULTS, hashRing, ringPosition, type HashRing, type HashRingInit } from './hash-ring.js';
export {
  memoryIndexProjection,
  type MemoryIndexOptions,
  type MemoryIndexState,
} from './memory-index-projection.js';
export {
  memoryPlacement,
  type MemoryPeer,
  type MemoryPeers,
  type MemoryPlacement,
  type MemoryPlacementInit,
  type Owners,
} from './memory-placement.js';
export {
  MEMORY_PROJECTIONS,
  memoryPrimitive,
  type MemoryComponents,
  type MemoryInit,
  type MemoryPrimitive,
} from './memory-primitive.js';
export {
  MEMORY_EVENTS,
  MEMORY_TIERS,
  memoriesProjection,
  sessionKey,
  type MemoriesState,
  type MemoryArchivedData,
  type MemoryDeletedData,
  type MemoryRecord,
  type MemoryStoredData,
  type MemoryTier,
} from './memory-projection.js';
export { openAiEmbedder, type OpenAiEmbedderInit } from './openai-embedder.js';
export {
  vectorIndex,
  type VectorHit,
  type VectorIndex,
  type VectorIndexInit,
  type VectorIndexStats,
  type VectorLabels,
  type VectorQuery,
} from './vector-index.js';
export { decodeVector, dotAt, encodeVector, normalizeInPlace } from './vector-math.js';
