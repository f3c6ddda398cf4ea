/**
 * How a handler output that fails its declared output schema is described to the caller
 * (docs/decisions/traces-and-errors.md): in the verb's own terms, never in the runtime's internal
 * names. The refusal envelope an SDK verb's schema admits (`{"$refusal": {reason, …}}`) is such
 * a name: a malformed refusal is reported as one problem ("the refusal … is malformed"), and the
 * problems the admitted-refusal branch adds to any other bad output are left out.
 */
import { REFUSAL_KEY } from '../../core/refusal.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { Problem } from '../../core/problem.js';

/** The message of the one problem a malformed refusal is reported as. */
export const MALFORMED_REFUSAL =
  'the handler returned a malformed refusal: a refusal needs a non-empty reason text and only the documented refusal fields';

const mentionsRefusal = (p: Problem): boolean =>
  p.pointer.includes(REFUSAL_KEY) || p.message.includes(REFUSAL_KEY);

/**
 * The problems of an output that failed its schema, as the caller may see them: one
 * {@link MALFORMED_REFUSAL} problem for a refusal-shaped output; otherwise every problem that
 * does not concern the refusal envelope (all of them when only those remain, with the
 * internal name written out as `refusal`).
 */
export function callerOutputProblems(output: JsonValue, problems: readonly Problem[]): Problem[] {
  if (isJsonObject(output) && Object.hasOwn(output, REFUSAL_KEY)) {
    return [{ pointer: '', message: MALFORMED_REFUSAL }];
  }
  const own = problems.filter((p) => !mentionsRefusal(p));
  const kept = own.length > 0 ? own : problems;
  return kept.map((p) => ({
    pointer: p.pointer.split(REFUSAL_KEY).join('refusal'),
    message: p.message.split(REFUSAL_KEY).join('refusal'),
  }));
}
