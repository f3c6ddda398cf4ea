/**
 * Refusals (seed 002 §8.3): a verb that declines to act answers with a refusal — a result,
 * not an error ("the system worked correctly by refusing"). On the wire a refusal is the
 * verb's output `{"$refusal": {reason, …}}`; every SDK verb's output schema admits it. Every
 * face answers it as a success (ESRP `succeeded`, Emergence DONE, a JSON-RPC `result`) and
 * adds the seed's snake_case form where it has room (docs/decisions/eras-hints-refusals.md).
 */
import { isRefusalOutput } from '../core/refusal.js';

export { agenteseRefusalOf, type AgenteseRefusal } from '../core/refusal.js';

/** Why and how a verb refused. Money is in integer micro-units (D12). */
export type RefusalInfo = {
  /** Why the verb refused, in a sentence a person can act on. */
  readonly reason: string;
  /** The verb that refused (filled in by the SDK). */
  readonly verb?: string;
  /** What consent would let the verb act. */
  readonly consentRequired?: string;
  /** Where to appeal. */
  readonly appealTo?: string;
  /** What forcing the action would cost, integer micro-units. */
  readonly overrideCostMicros?: number;
};

/** A refusal, as a verb's output. */
export type Refusal = { readonly $refusal: RefusalInfo };

/** JSON Schema of a {@link Refusal}. */
export const REFUSAL_SCHEMA = {
  type: 'object',
  required: ['$refusal'],
  additionalProperties: false,
  properties: {
    $refusal: {
      type: 'object',
      required: ['reason'],
      additionalProperties: false,
      properties: {
        reason: { type: 'string', minLength: 1 },
        verb: { type: 'string' },
        consentRequired: { type: 'string' },
        appealTo: { type: 'string' },
        overrideCostMicros: { type: 'integer', minimum: 0 },
      },
    },
  },
} as const;

/**
 * A refusal to return from a verb handler.
 *
 * @example
 * if (!input.consent) return refuse('the user has not agreed to share memories', { consentRequired: 'memory/share' });
 */
export function refuse(reason: string, extra: Omit<RefusalInfo, 'reason'> = {}): Refusal {
  return { $refusal: { ...extra, reason } };
}

/** True when a verb's output is a refusal. */
export function isRefusal(value: unknown): value is Refusal {
  return isRefusalOutput(value);
}
