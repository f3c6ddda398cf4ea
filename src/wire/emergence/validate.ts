/**
 * Validation of an Emergence message (seed 000 §1–2, DESIGN D4). Reports every problem, each
 * at its JSON pointer, so a person can fix the whole message in one pass.
 */
import { BROADCAST } from '../../core/envelope.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject } from '../../core/json.js';
import { childPointer } from '../../core/problem.js';
import type { Problem } from '../../core/problem.js';
import {
  EMERGENCE_EXTENSION_PREFIX,
  EMERGENCE_KEYS,
  EMERGENCE_VERB_PATTERN,
  UUID_V4_PATTERN,
} from './message.js';

/** A short name of a value's JSON type, for messages. */
function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}

/** The longest agent id accepted in `from` / `to`, in characters (code points). */
export const MAX_AGENT_ID_LENGTH = 128;

/** C0 controls (NUL included), DEL and C1 controls: never part of an agent id. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** The number of code points in `text` (a surrogate pair counts once). */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

function checkAgentId(message: JsonObject, key: 'from' | 'to', problems: Problem[]): void {
  if (!hasOwn(message, key)) return;
  const value = message[key];
  if (typeof value !== 'string') {
    problems.push({
      pointer: `/${key}`,
      message: `"${key}" must be a string agent id, got ${jsonTypeName(value)}`,
    });
  } else if (value === '') {
    problems.push({ pointer: `/${key}`, message: `"${key}" must be a non-empty agent id` });
  } else if (CONTROL_CHARACTER.test(value)) {
    const at = value.search(CONTROL_CHARACTER);
    const code = value.charCodeAt(at).toString(16).padStart(4, '0');
    problems.push({
      pointer: `/${key}`,
      message: `"${key}" must be an agent id without control characters; found U+${code.toUpperCase()} at position ${at}`,
    });
  } else if (codePoints(value) > MAX_AGENT_ID_LENGTH) {
    problems.push({
      pointer: `/${key}`,
      message: `"${key}" must be an agent id of at most ${MAX_AGENT_ID_LENGTH} characters, got ${codePoints(value)}`,
    });
  } else if (key === 'from' && value === BROADCAST) {
    problems.push({
      pointer: '/from',
      message:
        '"from" must be the sender\'s agent id; "broadcast" is reserved for "to" and is no agent\'s id',
    });
  }
}

function checkVerbData(verb: string, data: JsonObject, problems: Problem[]): void {
  if (verb === 'DONE') {
    if (!hasOwn(data, 'result')) {
      problems.push({
        pointer: '/data/result',
        message:
          'a DONE must carry its outcome in data.result (D4: DONE carries {result: …}; other keys are kept)',
      });
    }
  } else if (verb === 'ERROR') {
    if (!hasOwn(data, 'code')) {
      problems.push({
        pointer: '/data/code',
        message: 'an ERROR must carry data.code, an integer (e.g. 429)',
      });
    } else if (typeof data.code !== 'number' || !Number.isSafeInteger(data.code)) {
      problems.push({
        pointer: '/data/code',
        message: `data.code of an ERROR must be an integer (e.g. 429), got ${jsonTypeName(data.code)}`,
      });
    }
    if (!hasOwn(data, 'msg')) {
      problems.push({
        pointer: '/data/msg',
        message: 'an ERROR must carry data.msg, a string saying what went wrong',
      });
    } else if (typeof data.msg !== 'string') {
      problems.push({
        pointer: '/data/msg',
        message: `data.msg of an ERROR must be a string, got ${jsonTypeName(data.msg)}`,
      });
    }
  }
}

/**
 * Every problem in `input` as an Emergence message; empty when it is valid.
 *
 * Rules: a JSON object; the five keys `id`, `from`, `to`, `verb`, `data` all present; any
 * other key starts with `_x_`; `id` a UUID v4; `from` and `to` non-empty strings of at most 128 characters without
 * control characters (NUL included), `from` not
 * `broadcast`; `verb` matches `^[A-Z][A-Z0-9_]*$`; `data` an object; a DONE has
 * `data.result`; an ERROR has an integer `data.code` and a string `data.msg`.
 *
 * Assumes `input` came from a JSON parser (values are not checked for being JSON).
 * @throws never.
 */
export function validateEmergence(input: unknown): Problem[] {
  if (!isJsonObject(input)) {
    return [
      { pointer: '', message: `an Emergence message must be a JSON object, got ${jsonTypeName(input)}` },
    ];
  }
  const problems: Problem[] = [];
  for (const key of EMERGENCE_KEYS) {
    if (!hasOwn(input, key)) {
      problems.push({
        pointer: `/${key}`,
        message: `required key "${key}" is missing (an Emergence message has exactly id, from, to, verb and data)`,
      });
    }
  }
  for (const key of Object.keys(input)) {
    if (!(EMERGENCE_KEYS as readonly string[]).includes(key) && !key.startsWith(EMERGENCE_EXTENSION_PREFIX)) {
      problems.push({
        pointer: childPointer('', key),
        message: `unknown key "${key}": only id, from, to, verb and data are allowed, and extension keys must start with "_x_" (e.g. "_x_${key}")`,
      });
    }
  }
  if (hasOwn(input, 'id')) {
    const id = input.id;
    if (typeof id !== 'string') {
      problems.push({ pointer: '/id', message: `"id" must be a UUID v4 string, got ${jsonTypeName(id)}` });
    } else if (!UUID_V4_PATTERN.test(id)) {
      problems.push({
        pointer: '/id',
        message: `"id" must be a UUID v4 (xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx), got "${id}"`,
      });
    }
  }
  checkAgentId(input, 'from', problems);
  checkAgentId(input, 'to', problems);
  let verb: string | undefined;
  if (hasOwn(input, 'verb')) {
    const value = input.verb;
    if (typeof value !== 'string') {
      problems.push({ pointer: '/verb', message: `"verb" must be a string, got ${jsonTypeName(value)}` });
    } else if (!EMERGENCE_VERB_PATTERN.test(value)) {
      problems.push({
        pointer: '/verb',
        message: `"verb" must be ALL-CAPS letters, digits and "_", starting with a letter (e.g. HELP), got "${value}"`,
      });
    } else {
      verb = value;
    }
  }
  if (hasOwn(input, 'data')) {
    const data = input.data;
    if (!isJsonObject(data)) {
      problems.push({
        pointer: '/data',
        message: `"data" must be a JSON object (it may be empty: {}), got ${jsonTypeName(data)}`,
      });
    } else if (verb !== undefined) {
      checkVerbData(verb, data, problems);
    }
  }
  return problems;
}
