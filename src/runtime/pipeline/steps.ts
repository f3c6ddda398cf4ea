/**
 * The invoker pipeline's step names (DESIGN §3) and the helper that runs one step inside an
 * observer span. Decoding and encoding to the wire are the faces' job; the runtime starts
 * from a core Envelope and ends with one.
 */
import { toPlexusError } from '../../core/errors.js';
import type { Observer, ObserverAttributes, ObserverSpanOptions } from '../observer.js';

/** Every pipeline step, in order. */
export const PIPELINE_STEPS = [
  'validate_envelope',
  'resolve',
  'era',
  'validate_input',
  'verify_signature',
  'authorize',
  'idempotency',
  'pre_effects',
  'route',
  'execute',
  'post_effects',
  'encode',
] as const;

/** One of {@link PIPELINE_STEPS}. */
export type PipelineStep = (typeof PIPELINE_STEPS)[number];

/** The span name of a step: `runtime.<step>`. */
export function stepSpanName(step: PipelineStep): string {
  return SPAN_NAMES[step];
}

/** Span names made once (a name per call would be one more string per step per request). */
const SPAN_NAMES = Object.fromEntries(PIPELINE_STEPS.map((step) => [step, `runtime.${step}`])) as Record<
  PipelineStep,
  string
>;

/**
 * Runs `fn` as the pipeline step `step`: a span around it, ended with the step's error when
 * it throws (the error is rethrown unchanged, as a PlexusError).
 */
export function runStep<T>(
  observer: Observer,
  step: PipelineStep,
  attributes: ObserverAttributes,
  fn: () => T,
  options?: ObserverSpanOptions,
): T {
  const span = observer.span(stepSpanName(step), attributes, options);
  try {
    const result = fn();
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          const failure = toPlexusError(error);
          span.end(failure);
          throw failure;
        },
      ) as T;
    }
    span.end();
    return result;
  } catch (error) {
    const failure = toPlexusError(error);
    span.end(failure);
    throw failure;
  }
}
