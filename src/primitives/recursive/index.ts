/**
 * The Hyperspace recursive primitive (seed 003 §4.5): loop detection on call stacks, depth
 * tracking with a per-session maximum, and traces.
 */
export { cyclePattern, findCycle, type StackCycle } from './cycle.js';
export {
  RECURSIVE_PROJECTIONS,
  analyzeStack,
  recursivePrimitive,
  type LoopAnalysis,
  type RecursiveComponents,
  type RecursiveInit,
} from './recursive-primitive.js';
export {
  RECURSIVE_EVENTS,
  TRACE_STEPS_KEPT,
  tracesProjection,
  type DepthViolation,
  type SessionTrace,
  type TracedStep,
  type TracesState,
} from './recursive-projection.js';
export { MAX_CALL_STACK } from './recursive-schemas.js';
