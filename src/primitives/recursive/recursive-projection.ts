/**
 * The traces projection of the recursive primitive (`recursive.traces`): per session, the
 * tracked steps (the last {@link TRACE_STEPS_KEPT}), their count, the deepest depth seen, an
 * explicit maximum depth when one was set, and the last time a depth passed the maximum.
 */
import type { JsonObject, JsonValue } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import type { Projection } from '../../store/projection.js';
import { eventOf, type EventType } from '../../store/event-map.js';

/** Event types of the recursive primitive. */
export const RECURSIVE_EVENTS = {
  stepTracked: 'recursive.step_tracked',
  maxDepthSet: 'recursive.max_depth_set',
  loopDetected: 'recursive.loop_detected',
} as const satisfies Readonly<Record<string, EventType>>;

/** Data of `recursive.step_tracked`. */
export interface StepTrackedData {
  readonly sessionId: string;
  readonly step: string;
  readonly depth: number;
  /** Unix ms. */
  readonly at: number;
}

/** Data of `recursive.max_depth_set`. */
export interface MaxDepthSetData {
  readonly sessionId: string;
  readonly maxDepth: number;
  /** Unix ms. */
  readonly at: number;
}

/** Data of `recursive.loop_detected`: a step went deeper than the session's maximum. */
export interface LoopDetectedData {
  readonly sessionId: string;
  readonly step: string;
  readonly depth: number;
  readonly maxDepth: number;
  /** Unix ms. */
  readonly at: number;
}

declare module '../../store/event-map.js' {
  /** The recursive primitive's events (`RECURSIVE_EVENTS`). */
  interface EventMap {
    'recursive.step_tracked': StepTrackedData;
    'recursive.max_depth_set': MaxDepthSetData;
    'recursive.loop_detected': LoopDetectedData;
  }
}

/** Steps kept per session (older ones are counted but dropped). */
export const TRACE_STEPS_KEPT = 1000;

/** One tracked step. */
export interface TracedStep {
  readonly step: string;
  readonly depth: number;
  /** Unix ms. */
  readonly at: number;
}

/** A depth that passed the maximum. */
export interface DepthViolation extends TracedStep {
  readonly maxDepth: number;
}

/** One session's trace. */
export interface SessionTrace {
  steps: TracedStep[];
  total: number;
  deepest: number;
  maxDepth?: number;
  lastViolation?: DepthViolation;
}

/** State of `recursive.traces`: session id → trace. */
export interface TracesState {
  readonly sessions: Map<string, SessionTrace>;
}

function traceOf(state: TracesState, sessionId: string): SessionTrace {
  let trace = state.sessions.get(sessionId);
  if (trace === undefined) {
    trace = { steps: [], total: 0, deepest: 0 };
    state.sessions.set(sessionId, trace);
  }
  return trace;
}

function apply(state: TracesState, event: Event): TracesState {
  const tracked = eventOf(event, RECURSIVE_EVENTS.stepTracked);
  const maxSet = eventOf(event, RECURSIVE_EVENTS.maxDepthSet);
  const loop = eventOf(event, RECURSIVE_EVENTS.loopDetected);
  const sessionId = (tracked ?? maxSet ?? loop)?.data.sessionId;
  if (sessionId === undefined) return state;
  const trace = traceOf(state, sessionId);
  if (tracked !== undefined) {
    const d = tracked.data;
    trace.steps.push({ step: d.step, depth: d.depth, at: d.at });
    if (trace.steps.length > TRACE_STEPS_KEPT) trace.steps.splice(0, trace.steps.length - TRACE_STEPS_KEPT);
    trace.total += 1;
    trace.deepest = Math.max(trace.deepest, d.depth);
  } else if (maxSet !== undefined) {
    trace.maxDepth = maxSet.data.maxDepth;
  } else if (loop !== undefined) {
    const d = loop.data;
    trace.lastViolation = { step: d.step, depth: d.depth, at: d.at, maxDepth: d.maxDepth };
  }
  return state;
}

function traceToJson(t: SessionTrace): JsonObject {
  const out: JsonObject = {
    steps: t.steps.map((s) => ({ step: s.step, depth: s.depth, at: s.at })),
    total: t.total,
    deepest: t.deepest,
  };
  if (t.maxDepth !== undefined) out.maxDepth = t.maxDepth;
  if (t.lastViolation !== undefined) out.lastViolation = { ...t.lastViolation };
  return out;
}

/** The `recursive.traces` projection. */
export const tracesProjection: Projection<TracesState> = {
  name: 'recursive.traces',
  version: 1,
  filter: { typePrefix: 'recursive.' },
  initial: () => ({ sessions: new Map() }),
  apply,
  toJson: (state): JsonValue => ({
    sessions: [...state.sessions].map(([id, t]): JsonValue => [id, traceToJson(t)]),
  }),
  fromJson: (json) => {
    const list = (isJsonObject(json) && Array.isArray(json.sessions) ? json.sessions : []) as unknown as [
      string,
      SessionTrace,
    ][];
    return {
      sessions: new Map(
        list.map(([id, t]) => [
          id,
          {
            ...t,
            steps: t.steps.map((s) => ({ ...s })),
            ...(t.lastViolation === undefined ? {} : { lastViolation: { ...t.lastViolation } }),
          },
        ]),
      ),
    };
  },
};
