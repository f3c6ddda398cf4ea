/**
 * Validation of a Nova26 A2A envelope: the schema of its version, then the addressing
 * rules. An unknown `schemaVersion` stops validation there: the rest of the message is in a
 * format this node does not know.
 */
import { isJsonObject } from '../../core/json.js';
import { childPointer } from '../../core/problem.js';
import type { Problem } from '../../core/problem.js';
import { compareDateTimes, isDateTime } from '../../core/records/datetime.js';
import { replaceProblemsAt, schemaValidator } from '../../core/schema-validator.js';
import { CAPABILITY_SELECTOR_PREFIX, parseCapabilitySelector } from '../../core/verb-name.js';
import {
  NOVA_BROADCAST,
  NOVA_BROADCAST_ALIAS,
  NOVA_ENVELOPE_SCHEMA,
  NOVA_SUPPORTED_SCHEMA_VERSIONS,
} from './envelope.js';

/** The prefix of extension keys the Nova codec itself uses; a wire message may not use it. */
export const NOVA_RESERVED_EXTENSION_PREFIX = '_x_nova_';

/**
 * The version problem of `input`, when it declares a `schemaVersion` string this node does
 * not read; `undefined` otherwise (including when `schemaVersion` is missing or not a
 * string — those are shape problems).
 */
export function novaVersionProblem(input: unknown): Problem | undefined {
  if (!isJsonObject(input)) return undefined;
  const version = input['schemaVersion'];
  if (typeof version !== 'string' || NOVA_SUPPORTED_SCHEMA_VERSIONS.includes(version)) return undefined;
  return {
    pointer: '/schemaVersion',
    message: `schema version ${JSON.stringify(version)} is not supported; this node reads ${NOVA_SUPPORTED_SCHEMA_VERSIONS.join(', ')}`,
  };
}

/**
 * Every problem of `input` as a Nova envelope, each with its JSON pointer; empty when valid.
 * Checks: the schema (required fields, the ten types, RFC 3339 times, metadata field types,
 * no unknown top-level keys except `_x_…`), `from` is not a broadcast marker, a capability
 * selector names something, `metadata.deadline` is not before `timestamp`, and no
 * `_x_nova_…` keys (reserved for the codec).
 */
export function validateNova(input: unknown): Problem[] {
  const versionProblem = novaVersionProblem(input);
  if (versionProblem !== undefined) return [versionProblem];
  const problems = schemaValidator().validate(NOVA_ENVELOPE_SCHEMA, input);
  if (!isJsonObject(input)) return problems;
  const { from, to } = input;
  if (from === NOVA_BROADCAST || from === NOVA_BROADCAST_ALIAS) {
    replaceProblemsAt(
      problems,
      '/from',
      `"${from}" addresses every agent; "from" must be the sender's agent id`,
    );
  }
  if (
    typeof to === 'string' &&
    to.startsWith(CAPABILITY_SELECTOR_PREFIX) &&
    parseCapabilitySelector(to) === undefined
  ) {
    problems.push({
      pointer: '/to',
      message: `a capability selector must name a verb after "${CAPABILITY_SELECTOR_PREFIX}"`,
    });
  }
  const metadata = input['metadata'];
  const deadline = isJsonObject(metadata) ? metadata['deadline'] : undefined;
  const timestamp = input['timestamp'];
  if (isDateTime(deadline) && isDateTime(timestamp) && compareDateTimes(deadline, timestamp) < 0) {
    problems.push({
      pointer: '/metadata/deadline',
      message: `must not be before the timestamp ${timestamp}`,
    });
  }
  for (const key of Object.keys(input)) {
    if (key.startsWith(NOVA_RESERVED_EXTENSION_PREFIX)) {
      problems.push({
        pointer: childPointer('', key),
        message: `extension keys starting "${NOVA_RESERVED_EXTENSION_PREFIX}" are reserved for the Nova codec`,
      });
    }
  }
  return problems;
}
