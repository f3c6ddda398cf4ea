/**
 * Validation of an AGENTESE envelope: the shape (schema), then the D6 verb-name and version
 * rules, RFC 3339 times in order, the capability's validity window, and the reserved
 * extension names. Every problem is reported, each at its JSON pointer.
 */
import { isJsonObject } from '../../core/json.js';
import { childPointer } from '../../core/problem.js';
import type { Problem } from '../../core/problem.js';
import { compareDateTimes, isDateTime } from '../../core/records/datetime.js';
import { replaceProblemsAt, schemaValidator } from '../../core/schema-validator.js';
import { parseVerbName, sameVerbVersion, verbNameProblem, verbVersionProblem } from '../../core/verb-name.js';
import type { VerbVersion } from '../../core/verb-name.js';
import {
  AGENTESE_ENVELOPE_SCHEMA,
  AGENTESE_EXTENSION_PREFIX,
  CARRIED_CORE_FIELDS,
  PLEXUS_CARRY_PREFIX,
} from './envelope.js';

const CARRIED_KEYS: ReadonlySet<string> = new Set(
  CARRIED_CORE_FIELDS.map((f) => `${PLEXUS_CARRY_PREFIX}${f}`),
);

function checkVerb(wire: Record<string, unknown>, problems: Problem[]): void {
  const { verb, version } = wire;
  if (version !== undefined) {
    const vp = verbVersionProblem(version);
    if (vp !== undefined) replaceProblemsAt(problems, '/version', vp);
  }
  if (typeof verb !== 'string') return;
  const problem = verbNameProblem(verb);
  if (problem !== undefined) {
    replaceProblemsAt(problems, '/verb', problem);
    return;
  }
  const own = parseVerbName(verb).version;
  if (own !== undefined && version !== undefined && verbVersionProblem(version) === undefined) {
    if (!sameVerbVersion(own, version as VerbVersion)) {
      problems.push({
        pointer: '/version',
        message: `version ${JSON.stringify(version)} differs from the verb's own @${String(own)}; the verb's version wins, so drop "version" or make them equal`,
      });
    }
  }
}

function checkTimes(wire: Record<string, unknown>, problems: Problem[]): void {
  const { timestamp, deadline, capability } = wire;
  if (isDateTime(timestamp) && isDateTime(deadline) && compareDateTimes(deadline, timestamp) <= 0) {
    problems.push({ pointer: '/deadline', message: `must be after the timestamp ${timestamp}` });
  }
  if (isJsonObject(capability)) {
    const { not_before: nb, expires_at: exp } = capability;
    if (isDateTime(nb) && isDateTime(exp) && compareDateTimes(exp, nb) <= 0) {
      problems.push({ pointer: '/capability/expires_at', message: `must be after not_before ${nb}` });
    }
  }
}

/**
 * Every problem of `input` as an AGENTESE envelope; empty when it is valid. Besides the
 * schema: the verb follows D6 (two or three segments, `@version` an integer or `YYYY-MM`);
 * `version` is a valid era and equals the verb's own `@version` when both are given;
 * `deadline` is after `timestamp`; a capability object expires after it starts;
 * `parent_span_id` differs from `span_id`; `_x_agentese_…` keys and unknown `_x_plexus_…`
 * keys are reserved.
 */
export function validateAgentese(input: unknown): Problem[] {
  const problems = schemaValidator().validate(AGENTESE_ENVELOPE_SCHEMA, input);
  if (!isJsonObject(input)) return problems;
  checkVerb(input, problems);
  checkTimes(input, problems);
  if (typeof input['span_id'] === 'string' && input['parent_span_id'] === input['span_id']) {
    problems.push({
      pointer: '/parent_span_id',
      message: 'must differ from span_id (a span is not its own parent)',
    });
  }
  for (const key of Object.keys(input)) {
    if (key.startsWith(AGENTESE_EXTENSION_PREFIX)) {
      problems.push({
        pointer: childPointer('', key),
        message: `extension keys starting "${AGENTESE_EXTENSION_PREFIX}" are reserved for the AGENTESE codec`,
      });
    } else if (key.startsWith(PLEXUS_CARRY_PREFIX) && !CARRIED_KEYS.has(key)) {
      problems.push({
        pointer: childPointer('', key),
        message: `"${key}" is not a field the AGENTESE codec carries (known: ${[...CARRIED_KEYS].join(', ')})`,
      });
    }
  }
  return problems;
}
