/**
 * Pipeline step `validate_envelope`: the request is a well-formed core Envelope (its JSON
 * Schema) of kind `request` with a verb.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { validateEnvelope } from '../../core/records/envelope-schema.js';
import { problemsDetails, summarizeProblems } from '../../core/schema-validator.js';

/**
 * Checks `value` as a request envelope and returns it.
 *
 * @throws PlexusError `INVALID_REQUEST` with `details.problems` (each with a JSON pointer)
 *   when it is not a valid core Envelope, is not of kind `request`, or has an empty verb.
 */
export function validateEnvelopeStep(value: unknown): Envelope {
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
