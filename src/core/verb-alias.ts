/**
 * Verb aliases (docs/decisions/primitive-names.md): a protocol may name a verb differently
 * from Plexus (D6). The Hyperspace seed writes its methods in lower camelCase
 * (`state.createSession`) where the verb is snake_case (`state.create_session`); both names
 * reach the same verb, and the canonical (snake_case) name is the one the node records.
 *
 * This module only says what an alias may look like and how a caller's name splits into an
 * ESRP target; which alias means which verb is the runtime's alias table (`runtime/verb-aliases.ts`).
 */
import { PlexusError } from './errors.js';
import { VERB_SEGMENT_COUNT, stripVerbVersion, verbNameProblem } from './verb-name.js';

/** The pattern one alias segment matches: lower camelCase (`createSession`, `channel`). */
export const VERB_ALIAS_SEGMENT_PATTERN = /^[a-z][a-zA-Z0-9]*$/;

/** The longest alias accepted, in characters. */
export const MAX_VERB_ALIAS_LENGTH = 200;

/**
 * Why `text` is not a valid verb alias, or `undefined` when it is: two or three lower
 * camelCase segments joined by dots, no `@version`, at most {@link MAX_VERB_ALIAS_LENGTH}
 * characters.
 */
export function verbAliasProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'a verb alias must be a string';
  if (text.length > MAX_VERB_ALIAS_LENGTH) {
    return `the name is longer than ${MAX_VERB_ALIAS_LENGTH} characters`;
  }
  const segments = text.split('.');
  if (segments.length < VERB_SEGMENT_COUNT.min || segments.length > VERB_SEGMENT_COUNT.max) {
    return `"${text}" must have two or three dot-separated segments`;
  }
  const bad = segments.find((s) => !VERB_ALIAS_SEGMENT_PATTERN.test(s));
  if (bad !== undefined) {
    return `"${text}": segment "${bad.slice(0, 64)}" must start with a lower-case letter and contain only letters and digits`;
  }
  return undefined;
}

/**
 * Why `text` cannot name a verb in a call, or `undefined` when it can: a verb name (D6,
 * `state.create_session@1`) or a verb alias (`state.createSession`). Whether the node knows
 * the name is for the node to say (`UNKNOWN_VERB`).
 */
export function callNameProblem(text: unknown): string | undefined {
  const asVerb = verbNameProblem(text);
  if (asVerb === undefined) return undefined;
  if (typeof text === 'string' && !text.includes('@') && verbAliasProblem(text) === undefined) {
    return undefined;
  }
  return asVerb;
}

/**
 * The ESRP target of a call name: every segment but the last is the `service`, the last is
 * the `operation` (`micropayments.channel.open` → `micropayments.channel` / `open`).
 *
 * @throws PlexusError `INVALID_PARAMS` when `text` is neither a verb name nor an alias, or
 *   carries an `@version` (ESRP targets carry none).
 */
export function esrpTargetOfCallName(text: string): { service: string; operation: string } {
  const problem = callNameProblem(text);
  if (problem !== undefined) throw new PlexusError('INVALID_PARAMS', problem, { details: { verb: text } });
  if (text.includes('@')) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `ESRP targets carry no version: call ${stripVerbVersion(text)} without "${text.slice(text.indexOf('@'))}"`,
      { details: { verb: text } },
    );
  }
  const dot = text.lastIndexOf('.');
  return { service: text.slice(0, dot), operation: text.slice(dot + 1) };
}
