/**
 * The Hyperspace recursive primitive (seed 003 §4.5): loop detection on call stacks, depth
 * tracking per session with a maximum (−32005 LOOP_DETECTED when a tracked depth passes it),
 * and the session's trace. State is the `recursive.traces` projection.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { HandlerContext } from '../../runtime/index.js';
import type { Projection } from '../../store/projection.js';
import { projectionView } from '../../store/projection-view.js';
import { keyedLock } from '../keyed-lock.js';
import { definePrimitive, type Primitive, type PrimitiveComponents } from '../primitive.js';
import { requireActive, type SessionDirectory } from '../state/state-primitive.js';
import { cyclePattern, findCycle } from './cycle.js';
import { RECURSIVE_EVENTS, tracesProjection } from './recursive-projection.js';
import {
  ANALYZE_INPUT,
  ANALYZE_OUTPUT,
  GET_TRACE_INPUT,
  GET_TRACE_OUTPUT,
  SET_MAX_DEPTH_INPUT,
  SET_MAX_DEPTH_OUTPUT,
  TRACK_INPUT,
  TRACK_OUTPUT,
} from './recursive-schemas.js';

/** Dependencies of the recursive primitive. */
export interface RecursiveComponents extends PrimitiveComponents {
  /** The sessions traces belong to (the state primitive's `sessions`). */
  readonly sessions: SessionDirectory;
}

/** Options of the recursive primitive. */
export interface RecursiveInit {
  /** Maximum depth of sessions without `setMaxDepth`. @default 50 */
  readonly defaultMaxDepth?: number;
  /** `maxIterations` of `analyze` calls without one. @default 10 */
  readonly defaultMaxIterations?: number;
}

/** The projections of the recursive primitive (for `plexus replay --verify`). */
export const RECURSIVE_PROJECTIONS: readonly Projection<unknown>[] = [tracesProjection];

/** What `analyze` concludes about a stack. */
export interface LoopAnalysis {
  readonly isLooping: boolean;
  readonly pattern?: string;
  readonly cycle?: readonly string[];
  readonly iterations: number;
  readonly depth: number;
  readonly recommendation: 'continue' | 'warn' | 'halt';
  readonly reason: string;
}

/**
 * Analyses a call stack: the step being run is `currentStep`, appended to `callStack` unless
 * the stack already ends with it. `halt` when the cycle has repeated `maxIterations` times or
 * the depth passes `maxDepth`; `warn` when a cycle repeats; `continue` otherwise.
 */
export function analyzeStack(
  callStack: readonly string[],
  currentStep: string,
  maxIterations: number,
  maxDepth: number,
): LoopAnalysis {
  const stack = callStack[callStack.length - 1] === currentStep ? callStack : [...callStack, currentStep];
  const depth = stack.length;
  const found = findCycle(stack);
  const iterations = found?.iterations ?? 0;
  const loop = found === undefined ? {} : { pattern: cyclePattern(found.cycle), cycle: [...found.cycle] };
  if (found !== undefined && iterations >= maxIterations) {
    return {
      isLooping: true,
      ...loop,
      iterations,
      depth,
      recommendation: 'halt',
      reason: `the cycle has repeated ${iterations} times (maxIterations ${maxIterations})`,
    };
  }
  if (depth > maxDepth) {
    return {
      isLooping: found !== undefined,
      ...loop,
      iterations,
      depth,
      recommendation: 'halt',
      reason: `the stack depth ${depth} passes the session's maxDepth ${maxDepth}`,
    };
  }
  if (found !== undefined) {
    return {
      isLooping: true,
      ...loop,
      iterations,
      depth,
      recommendation: 'warn',
      reason: `a cycle of ${found.period} step(s) has repeated ${iterations} times (halt at ${maxIterations})`,
    };
  }
  return {
    isLooping: false,
    iterations,
    depth,
    recommendation: 'continue',
    reason: 'no repeating cycle at the end of the stack',
  };
}

/**
 * Creates the recursive primitive.
 * @example
 * const recursive = recursivePrimitive({ log, sessions: state.sessions }, { defaultMaxDepth: 20 });
 */
export function recursivePrimitive(components: RecursiveComponents, init: RecursiveInit = {}): Primitive {
  const { log, sessions } = components;
  const now = components.now ?? Date.now;
  const defaultMaxDepth = init.defaultMaxDepth ?? 50;
  const defaultMaxIterations = init.defaultMaxIterations ?? 10;
  const view = projectionView({ log, projection: tracesProjection });
  const lock = keyedLock();
  const maxDepthOf = (sessionId: string): number =>
    view.state().sessions.get(sessionId)?.maxDepth ?? defaultMaxDepth;
  const tenantField = (ctx: HandlerContext): { tenant?: string } =>
    ctx.envelope.tenantId === undefined ? {} : { tenant: ctx.envelope.tenantId };

  return definePrimitive({
    name: 'recursive',
    title: 'Hyperspace recursive',
    views: [view],
    methods: [
      {
        method: 'analyze',
        description:
          'Finds the repeating cycle at the end of a call stack and recommends continue, warn or halt.',
        input: ANALYZE_INPUT,
        output: ANALYZE_OUTPUT,
        category: 'query',
        effects: { reads: ['state/sessions', 'recursive/limits'] },
        handler(input, ctx) {
          const p = input as {
            sessionId: string;
            currentStep: string;
            callStack: string[];
            maxIterations?: number;
          };
          sessions.require(p.sessionId, ctx.envelope.tenantId);
          const analysis = analyzeStack(
            p.callStack,
            p.currentStep,
            p.maxIterations ?? defaultMaxIterations,
            maxDepthOf(p.sessionId),
          );
          return analysis as unknown as JsonObject;
        },
      },
      {
        method: 'track',
        description: "Records a step at a depth; −32005 when the depth passes the session's maximum.",
        input: TRACK_INPUT,
        output: TRACK_OUTPUT,
        category: 'mutation',
        effects: { reads: ['state/sessions', 'recursive/limits'], writes: ['recursive/traces'] },
        handler(input, ctx) {
          const { sessionId, step, depth } = input as { sessionId: string; step: string; depth: number };
          return lock.run(sessionId, async () => {
            requireActive(sessions.require(sessionId, ctx.envelope.tenantId), 'track steps');
            const maxDepth = maxDepthOf(sessionId);
            const at = now();
            if (depth > maxDepth) {
              const event = await log.append({
                type: RECURSIVE_EVENTS.loopDetected,
                data: { sessionId, step, depth, maxDepth, at },
                ...tenantField(ctx),
              });
              await view.waitFor(event.seq);
              throw new PlexusError(
                'LOOP_DETECTED',
                `Loop detected: step ${JSON.stringify(step)} at depth ${depth} passes the session's maxDepth ${maxDepth}`,
                {
                  details: { sessionId, step, depth, maxDepth },
                },
              );
            }
            const event = await log.append({
              type: RECURSIVE_EVENTS.stepTracked,
              data: { sessionId, step, depth, at },
              ...tenantField(ctx),
            });
            await view.waitFor(event.seq);
            return { tracked: true, depth };
          });
        },
      },
      {
        method: 'getTrace',
        description:
          "Answers a session's tracked steps (the last 1000), its maxDepth and how many steps were tracked.",
        input: GET_TRACE_INPUT,
        output: GET_TRACE_OUTPUT,
        category: 'query',
        effects: { reads: ['state/sessions', 'recursive/traces'] },
        handler(input, ctx) {
          const { sessionId } = input as { sessionId: string };
          sessions.require(sessionId, ctx.envelope.tenantId);
          const trace = view.state().sessions.get(sessionId);
          const out: JsonObject = {
            steps: (trace?.steps ?? []).map((s) => ({
              step: s.step,
              depth: s.depth,
              at: new Date(s.at).toISOString(),
            })),
            maxDepth: maxDepthOf(sessionId),
            totalIterations: trace?.total ?? 0,
            deepest: trace?.deepest ?? 0,
          };
          const v = trace?.lastViolation;
          if (v !== undefined)
            out.lastViolation = {
              step: v.step,
              depth: v.depth,
              maxDepth: v.maxDepth,
              at: new Date(v.at).toISOString(),
            };
          return out;
        },
      },
      {
        method: 'setMaxDepth',
        description: "Sets a session's maximum depth; answers whether it changed.",
        input: SET_MAX_DEPTH_INPUT,
        output: SET_MAX_DEPTH_OUTPUT,
        category: 'mutation',
        effects: { reads: ['state/sessions'], writes: ['recursive/limits'] },
        handler(input, ctx) {
          const { sessionId, maxDepth } = input as { sessionId: string; maxDepth: number };
          return lock.run(sessionId, async () => {
            requireActive(sessions.require(sessionId, ctx.envelope.tenantId), 'set maxDepth');
            if (view.state().sessions.get(sessionId)?.maxDepth === maxDepth) return { updated: false };
            const event = await log.append({
              type: RECURSIVE_EVENTS.maxDepthSet,
              data: { sessionId, maxDepth, at: now() },
              ...tenantField(ctx),
            });
            await view.waitFor(event.seq);
            return { updated: true };
          });
        },
      },
    ],
  });
}
