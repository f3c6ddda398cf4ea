/**
 * A handler's `ctx.telemetry(report)` as span attributes (seed 002 §7.1: `agentese.llm.*`).
 * A malformed report is refused at once (a handler bug should show, not vanish in a trace).
 */
import { PlexusError } from '../../core/errors.js';
import {
  ATTR_LLM_MODEL,
  ATTR_LLM_TOKENS_INPUT,
  ATTR_LLM_TOKENS_OUTPUT,
} from '../../observability/tracing/span-attributes.js';
import type { HandlerTelemetry } from '../context.js';
import type { ObserverAttributes } from '../observer.js';

function tokens(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `ctx.telemetry: llm.${field} must be a whole number ≥ 0, got ${typeof value === 'number' ? String(value) : typeof value}`,
    );
  }
  return value;
}

/**
 * The span attributes of `report`.
 *
 * @throws PlexusError `INVALID_PARAMS` for a model that is not a short string or a token count
 *   that is not a whole number ≥ 0.
 */
export function telemetryAttributes(report: HandlerTelemetry): ObserverAttributes {
  const llm: unknown = (report as { llm?: unknown } | undefined)?.llm;
  if (llm === undefined) return {};
  if (typeof llm !== 'object' || llm === null) {
    throw new PlexusError(
      'INVALID_PARAMS',
      'ctx.telemetry: llm must be an object {model, inputTokens, outputTokens}',
    );
  }
  const { model, inputTokens, outputTokens } = llm as Record<string, unknown>;
  if (model !== undefined && (typeof model !== 'string' || model.length === 0 || model.length > 256)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      'ctx.telemetry: llm.model must be a string of 1 to 256 characters',
    );
  }
  const input = tokens(inputTokens, 'inputTokens');
  const output = tokens(outputTokens, 'outputTokens');
  return {
    ...(model === undefined ? {} : { [ATTR_LLM_MODEL]: model }),
    ...(input === undefined ? {} : { [ATTR_LLM_TOKENS_INPUT]: input }),
    ...(output === undefined ? {} : { [ATTR_LLM_TOKENS_OUTPUT]: output }),
  };
}
