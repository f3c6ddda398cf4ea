/**
 * Pipelines (seed 002 Epilogue, §3.2): `compose(a, b, c)` runs `a`, feeds its output to `b`,
 * and so on. Its effects are the union of the steps' effects and its capabilities the union of
 * their scopes, known before it runs. Every step is a new span of one trace.
 */
import { PlexusError } from '../core/errors.js';
import { composeEffects, type Effects } from '../core/records/effects.js';
import type { JsonValue } from '../core/json.js';
import type { VerbSpec } from '../core/records/verb-spec.js';
import { InvocationError } from './invocation-error.js';
import { isRefusal } from './refusal.js';
import { newTraceparent } from './trace-context.js';
import type { CallResult, InvokeOptions } from './verb-context.js';
import type { SomeVerbDefinition } from './verb.js';

/** A step: a verb name, or a defined verb. */
export type PipelineStep = string | SomeVerbDefinition;

/** A composed pipeline. */
export interface Pipeline {
  /** The steps' verbs, in order. */
  readonly verbs: readonly string[];
  /** The union of the steps' declared effects. */
  readonly effects: Effects;
  /** The union of the capability scopes the steps require, sorted. */
  readonly capabilities: readonly string[];
  /**
   * Runs the steps in order, each step's output the next one's input, all in one trace (the
   * caller's `traceparent`, else a new one; a new span per step). A refusal stops the pipeline
   * and is its result.
   * @throws InvocationError from the failing step (its message names the step).
   */
  run<O = JsonValue>(input: JsonValue, options?: InvokeOptions): Promise<CallResult<O>>;
}

/** What a pipeline needs. */
export interface PipelineComponents {
  /** The spec of a verb name (its effects and scopes). @throws when no agent offers it. */
  readonly describe: (verb: string) => VerbSpec;
  /** Runs one call. */
  readonly invoke: (verb: string, input: JsonValue, options: InvokeOptions) => Promise<JsonValue>;
}

/**
 * Composes steps into a pipeline.
 *
 * @throws PlexusError `INVALID_PARAMS` for no steps; what `describe` throws for a verb no
 *   agent offers (`UNKNOWN_VERB`).
 */
export function createPipeline(steps: readonly PipelineStep[], components: PipelineComponents): Pipeline {
  if (steps.length === 0) {
    throw new PlexusError('INVALID_PARAMS', 'compose() needs at least one verb');
  }
  const specs = steps.map((s) => (typeof s === 'string' ? components.describe(s) : s.spec));
  const verbs = specs.map((s) => s.name);
  const effects = specs.reduce<Effects>((acc, s) => composeEffects(acc, s.effects), {});
  const capabilities = [...new Set(specs.flatMap((s) => s.capabilities))].sort();
  return {
    verbs,
    effects,
    capabilities,
    async run<O = JsonValue>(input: JsonValue, options: InvokeOptions = {}): Promise<CallResult<O>> {
      // The pipeline's own span context: every step is a child of it.
      const traceparent = options.traceparent ?? newTraceparent();
      // a tracestate belongs to the caller's trace, not to a new one (OBS-45)
      const { tracestate, ...rest } = options;
      const stepOptions: InvokeOptions = {
        ...rest,
        traceparent,
        ...(options.traceparent === undefined || tracestate === undefined ? {} : { tracestate }),
      };
      let current = input;
      for (const [i, verb] of verbs.entries()) {
        try {
          current = await components.invoke(verb, current, stepOptions);
        } catch (error) {
          if (!(error instanceof InvocationError)) throw error;
          const own = `${verb}: `;
          const reason = error.message.startsWith(own) ? error.message.slice(own.length) : error.message;
          throw new InvocationError(
            {
              code: error.code,
              message: `pipeline step ${i + 1} of ${verbs.length} failed: ${reason}`,
              retryable: error.retryable,
              details: { ...(error.details ?? {}), step: i + 1 },
            },
            {
              verb,
              cause: error,
              ...(error.jobId === undefined ? {} : { jobId: error.jobId }),
              ...(error.traceparent === undefined ? {} : { traceparent: error.traceparent }),
            },
          );
        }
        if (isRefusal(current)) return current;
      }
      return current as CallResult<O>;
    },
  };
}
