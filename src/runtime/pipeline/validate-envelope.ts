/**
 * Pipeline step `validate_envelope`: the request is a well-formed core Envelope (its JSON
 * Schema) of kind `request` with a verb, and the event log can record it (plain JSON, no lone
 * surrogate, at most `MAX_JSON_DEPTH` deep): it is refused here, before any handler runs, so a
 * handler's effects are never recorded without the `job.submitted` of their job.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { recordableProblem } from '../../core/recordable.js';
import { validateEnvelope } from '../../core/records/envelope-schema.js';
import { problemsDetails, summarizeProblems } from '../../core/schema-validator.js';

/**
 * Checks `value` as a request envelope and returns it.
 *
 * @throws PlexusError `INVALID_REQUEST` with `details.problems` (each with a JSON pointer)
 *   when it is not a valid core Envelope, is not of kind `request`, or has an empty verb;
 *   `INVALID_PARAMS` (the trouble is in `data`) or `INVALID_REQUEST` (elsewhere) with
 *   `details.pointer` when the log could not record it.
 */
export function validateEnvelopeStep(value: unknown): Envelope {
  const unrecordable = recordableProblem(value);
  if (unrecordable !== undefined) {
    const { pointer, message } = unrecordable;
    const inData = pointer === '/data' || pointer.startsWith('/data/');
    throw new PlexusError(
      inData ? 'INVALID_PARAMS' : 'INVALID_REQUEST',
      `the request cannot be recorded: ${message}`,
      {
        details: { pointer },
      },
    );
  }
  const problems = validateEnvelope(value);
  if (problems.length > 0) {
    throw new PlexusError('INVALID_REQUEST', `envelope is invalid: ${summarizeProblems(problems)}`, {
      details: problemsDetails(problems),
    });
  }
  const envelope = value as Envelope;
  if (envelope.kind !== 'request') {
    throw new PlexusError(
      'INVALID_REQUEST',
      `the runtime invokes envelopes of kind "request", not "${envelope.kind}"`,
      { details: { pointer: '/kind' } },
    );
  }
  if (envelope.verb === '') {
    throw new PlexusError('INVALID_REQUEST', 'the request names no verb', { details: { pointer: '/verb' } });
  }
  return envelope;
}
