/**
 * The Hyperspace primitives (seed 003 §4–6): each an ordinary agent whose verbs are the
 * seed's JSON-RPC methods and whose state is a projection of the event log. Each folder's
 * own index exports its details; this module exports the factories, their projections and
 * the pluggable parts (embedders, reflectors, PII detection, the hash ring).
 */
export {
  definePrimitive,
  primitiveVerb,
  type Primitive,
  type PrimitiveComponents,
  type PrimitiveInit,
  type PrimitiveMethod,
} from './primitive.js';
export { keyedLock, type KeyedLock } from './keyed-lock.js';
export { MICROS_PER_UNIT, formatMicros, fromMicros, toMicros } from './money.js';
export {
  STATE_PROJECTIONS,
  statePrimitive,
  type SessionDirectory,
  type StateInit,
  type StatePrimitive,
} from './state/index.js';
export {
  GUARD_PROJECTIONS,
  detectPii,
  guardPrimitive,
  redactPii,
  redactPiiDeep,
  type GuardComponents,
  type GuardInit,
  type PiiFinding,
  type SafetyPolicy,
} from './guard/index.js';
export {
  TOOL_PROJECTIONS,
  runtimeToolCall,
  toolPrimitive,
  type ToolCall,
  type ToolComponents,
  type ToolInit,
} from './tool/index.js';
export {
  MEMORY_PROJECTIONS,
  hashRing,
  hashedEmbedder,
  memoryPrimitive,
  openAiEmbedder,
  vectorIndex,
  type Embedder,
  type HashRing,
  type HashRingInit,
  type MemoryComponents,
  type MemoryInit,
  type MemoryPrimitive,
  type OpenAiEmbedderInit,
  type VectorIndex,
} from './memory/index.js';
export {
  RECURSIVE_PROJECTIONS,
  findCycle,
  recursivePrimitive,
  type RecursiveComponents,
  type RecursiveInit,
} from './recursive/index.js';
export {
  LEARNING_PROJECTIONS,
  deterministicReflector,
  learningPrimitive,
  openAiChatReflector,
  type LearningInit,
  type OpenAiChatReflectorInit,
  type Reflector,
} from './learning/index.js';
export {
  IMPROVING_PROJECTIONS,
  improvingPrimitive,
  type ImprovingInit,
  type ImprovingPrimitive,
} from './improving/index.js';
export {
  MICROPAYMENTS_PROJECTIONS,
  micropaymentsPrimitive,
  receiptSigner,
  receiptTypedData,
  type MicropaymentsInit,
  type PayCredential,
} from './micropayments/index.js';
