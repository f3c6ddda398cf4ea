/**
 * Projection hints (seed 002 Part V, DESIGN D6): normalised to a mapping keyed
 * `surface:mode` whose values are the hint objects.
 */
import { PlexusError } from '../errors.js';
import { isJsonObject } from '../json.js';
import type { JsonObject } from '../json.js';
import { childPointer } from '../problem.js';
import type { Problem } from '../problem.js';
import { problemsDetails, summarizeProblems } from '../schema-validator.js';
import { PROJECTION_KEY_PATTERN_SOURCE } from './verb-spec.js';
import type { ProjectionHints } from './verb-spec.js';

const KEY = new RegExp(PROJECTION_KEY_PATTERN_SOURCE);

/**
 * Normalises a manifest's `projection` and lists every problem. Accepted forms: the list of
 * seed 002 §1.3 (`[ui:form, cli:prompt]`, each becoming `{}` hints), the mapping of §5.1
 * (`{ui:form: {fields: […]}}`; a `null` value becomes `{}`), or `null` / absent (no hints).
 */
export function normalizeProjectionWithProblems(
  raw: unknown,
  pointer = '',
): { projection: ProjectionHints; problems: Problem[] } {
  const projection: Record<string, JsonObject> = {};
  const problems: Problem[] = [];
  const checkKey = (key: string, at: string): boolean => {
    if (KEY.test(key)) return true;
    problems.push({ pointer: at, message: `"${key}" must be written surface:mode (e.g. ui:form, cli:json)` });
    return false;
  };
  if (raw === undefined || raw === null) return { projection, problems };
  if (Array.isArray(raw)) {
    raw.forEach((item: unknown, i) => {
      const at = childPointer(pointer, i);
      if (typeof item !== 'string')
        problems.push({ pointer: at, message: 'a projection must be a "surface:mode" string' });
      else if (checkKey(item, at)) projection[item] = {};
    });
  } else if (isJsonObject(raw)) {
    for (const [key, hints] of Object.entries(raw)) {
      const at = childPointer(pointer, key);
      if (!checkKey(key, at)) continue;
      if (hints === null) projection[key] = {};
      else if (isJsonObject(hints)) projection[key] = hints;
      else problems.push({ pointer: at, message: 'projection hints must be an object' });
    }
  } else {
    problems.push({
      pointer,
      message: 'projection must be a list of surface:mode names or a mapping keyed surface:mode',
    });
  }
  return { projection, problems };
}

/**
 * Normalises a manifest's `projection` (see {@link normalizeProjectionWithProblems}).
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` when any entry is malformed.
 */
export function normalizeProjection(raw: unknown): ProjectionHints {
  const { projection, problems } = normalizeProjectionWithProblems(raw);
  if (problems.length > 0) {
    throw new PlexusError('INVALID_PARAMS', `projection is invalid: ${summarizeProblems(problems)}`, {
      details: problemsDetails(problems),
    });
  }
  return projection;
}
