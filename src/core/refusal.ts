/**
 * Refusals (seed 002 §8.3, D10): a verb that declines to act answers with a refusal — a
 * result, not an error. A handler's output `{"$refusal": {reason, verb?, consentRequired?,
 * appealTo?, overrideCostMicros?}}` is one (what the SDK's `refuse()` returns); the faces
 * answer it as a success whose body is that output, and also show it in the seed's own
 * snake_case shape ({@link AgenteseRefusal}) where the face has room for it.
 */
import { isJsonObject, type JsonObject, type JsonValue } from './json.js';

/** The only key of a refusal output. */
export const REFUSAL_KEY = '$refusal';

/** A refusal in the shape of seed 002 §8.3 (money in integer micro-units, D12). */
export interface AgenteseRefusal {
  readonly verb: string;
  readonly reason: string;
  readonly consent_required?: string;
  readonly override_cost_micros?: number;
  readonly appeal_to?: string;
}

/** True when `output` is a refusal output: one key `$refusal` holding an object with a string `reason`. */
export function isRefusalOutput(output: unknown): output is { readonly $refusal: JsonObject } {
  if (!isJsonObject(output) || Object.keys(output).length !== 1) return false;
  const info = output[REFUSAL_KEY];
  return isJsonObject(info) && typeof info['reason'] === 'string';
}

/**
 * The seed-shaped refusal of a verb's output, or `undefined` when the output is not a refusal.
 * `verb` is the verb called; the refusal's own `verb` wins when it names one.
 */
export function agenteseRefusalOf(output: JsonValue | undefined, verb: string): AgenteseRefusal | undefined {
  if (!isRefusalOutput(output)) return undefined;
  const info = output.$refusal;
  const text = (key: string): string | undefined => {
    const v = info[key];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const cost = info['overrideCostMicros'];
  const consent = text('consentRequired');
  const appeal = text('appealTo');
  return {
    verb: text('verb') ?? verb,
    reason: info['reason'] as string,
    ...(consent === undefined ? {} : { consent_required: consent }),
    ...(typeof cost === 'number' && Number.isSafeInteger(cost) && cost >= 0
      ? { override_cost_micros: cost }
      : {}),
    ...(appeal === undefined ? {} : { appeal_to: appeal }),
  };
}
