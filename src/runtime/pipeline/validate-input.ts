/**
 * Pipeline step `validate_input`: the request's `data` against the input JSON Schema of the
 * verb, as each candidate agent's card declares it.
 *
 * For a request to one agent, that agent's schema decides. For `broadcast` and capability
 * selectors, candidates whose schema rejects the input are dropped; when every candidate
 * rejects it, the problems reported are those of the first candidate (by id).
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import {
  problemsDetails,
  schemaValidator,
  summarizeProblems,
  type SchemaValidator,
} from '../../core/schema-validator.js';
import type { Resolution } from '../routing/router.js';

/**
 * Returns the resolution with only the candidates whose input schema accepts `data`.
 *
 * @throws PlexusError `INVALID_PARAMS` (ESRP `INVALID_INPUT_SCHEMA`) with `details.problems`,
 *   each `{pointer, message}` locating the bad value, when no candidate accepts the input;
 *   `INVALID_PARAMS` when a card's schema is not a valid JSON Schema.
 */
export function validateInputStep(
  resolution: Resolution,
  data: JsonValue,
  validator: SchemaValidator = schemaValidator(),
): Resolution {
  let firstProblems: ReturnType<SchemaValidator['validate']> | undefined;
  const accepted = resolution.candidates.filter((candidate) => {
    const problems = validator.validate(candidate.capability.input, data);
    if (problems.length === 0) return true;
    firstProblems ??= problems;
    return false;
  });
  if (accepted.length > 0) {
    return accepted.length === resolution.candidates.length
      ? resolution
      : { ...resolution, candidates: accepted };
  }
  const problems = firstProblems ?? [];
  throw new PlexusError(
    'INVALID_PARAMS',
    `input of ${resolution.verb} is invalid: ${summarizeProblems(problems)}`,
    { details: { ...problemsDetails(problems), verb: resolution.verb } },
  );
}
