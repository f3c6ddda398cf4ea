/**
 * Validation of JSON-RPC 2.0 messages and batches. Reports every problem, each at its JSON
 * pointer.
 */
import { isJsonObject } from '../../core/json.js';
import type { JsonObject } from '../../core/json.js';
import { childPointer } from '../../core/problem.js';
import type { Problem } from '../../core/problem.js';
import { JSONRPC_VERSION, isAllowedJsonRpcErrorCode, isJsonRpcId } from './message.js';

const REQUEST_MEMBERS: ReadonlySet<string> = new Set(['jsonrpc', 'method', 'params', 'id']);
const RESPONSE_MEMBERS: ReadonlySet<string> = new Set(['jsonrpc', 'result', 'error', 'id']);
const ERROR_MEMBERS: ReadonlySet<string> = new Set(['code', 'message', 'data']);

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** A short name of a value's JSON type, for messages. */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}

/** Which of the four message shapes an object claims to be, by its members. */
export type JsonRpcShape = 'request' | 'notification' | 'response' | 'unknown';

/**
 * The shape `message` claims by its members: `method` with `id` → request, `method` without
 * `id` → notification, `result` or `error` → response, otherwise unknown. Says nothing about
 * validity.
 */
export function jsonRpcShape(message: JsonObject): JsonRpcShape {
  if (hasOwn(message, 'method')) return hasOwn(message, 'id') ? 'request' : 'notification';
  if (hasOwn(message, 'result') || hasOwn(message, 'error')) return 'response';
  return 'unknown';
}

function checkUnknown(
  message: JsonObject,
  allowed: ReadonlySet<string>,
  at: string,
  problems: Problem[],
): void {
  for (const key of Object.keys(message)) {
    if (!allowed.has(key)) {
      problems.push({
        pointer: childPointer(at, key),
        message: `unknown member "${key}" (allowed here: ${[...allowed].join(', ')})`,
      });
    }
  }
}

function checkId(message: JsonObject, at: string, required: boolean, problems: Problem[]): void {
  if (!hasOwn(message, 'id')) {
    if (required) {
      problems.push({
        pointer: `${at}/id`,
        message: 'a response must have "id" (null when the request id was unknown)',
      });
    }
    return;
  }
  if (!isJsonRpcId(message.id)) {
    problems.push({
      pointer: `${at}/id`,
      message: `"id" must be a string, a number or null, got ${typeName(message.id)}`,
    });
  }
}

function checkError(error: unknown, at: string, problems: Problem[]): void {
  const ptr = `${at}/error`;
  if (!isJsonObject(error)) {
    problems.push({
      pointer: ptr,
      message: `"error" must be an object {code, message, data?}, got ${typeName(error)}`,
    });
    return;
  }
  if (!hasOwn(error, 'code')) {
    problems.push({ pointer: `${ptr}/code`, message: 'an error object must have an integer "code"' });
  } else if (typeof error.code !== 'number' || !Number.isSafeInteger(error.code)) {
    problems.push({
      pointer: `${ptr}/code`,
      message: `"code" must be an integer, got ${typeName(error.code)}`,
    });
  } else if (!isAllowedJsonRpcErrorCode(error.code)) {
    problems.push({
      pointer: `${ptr}/code`,
      message: `code ${error.code} is reserved by JSON-RPC 2.0: inside -32768…-32000 only -32700, -32600…-32603 and the server range -32099…-32000 may be used`,
    });
  }
  if (!hasOwn(error, 'message')) {
    problems.push({ pointer: `${ptr}/message`, message: 'an error object must have a string "message"' });
  } else if (typeof error.message !== 'string') {
    problems.push({
      pointer: `${ptr}/message`,
      message: `"message" must be a string, got ${typeName(error.message)}`,
    });
  }
  checkUnknown(error, ERROR_MEMBERS, ptr, problems);
}

function validateMessageAt(input: unknown, at: string, problems: Problem[]): void {
  if (!isJsonObject(input)) {
    problems.push({
      pointer: at,
      message: `a JSON-RPC message must be an object, got ${typeName(input)}`,
    });
    return;
  }
  if (!hasOwn(input, 'jsonrpc')) {
    problems.push({ pointer: `${at}/jsonrpc`, message: 'missing "jsonrpc": it must be exactly "2.0"' });
  } else if (input.jsonrpc !== JSONRPC_VERSION) {
    problems.push({
      pointer: `${at}/jsonrpc`,
      message: `"jsonrpc" must be exactly "2.0", got ${JSON.stringify(input.jsonrpc)}`,
    });
  }
  const shape = jsonRpcShape(input);
  if (shape === 'request' || shape === 'notification') {
    if (typeof input.method !== 'string') {
      problems.push({
        pointer: `${at}/method`,
        message: `"method" must be a string, got ${typeName(input.method)}`,
      });
    }
    if (hasOwn(input, 'params') && !isJsonObject(input.params) && !Array.isArray(input.params)) {
      problems.push({
        pointer: `${at}/params`,
        message: `"params" must be an array (by position) or an object (by name), or be left out; got ${typeName(input.params)}`,
      });
    }
    checkId(input, at, false, problems);
    checkUnknown(input, REQUEST_MEMBERS, at, problems);
  } else if (shape === 'response') {
    if (hasOwn(input, 'result') && hasOwn(input, 'error')) {
      problems.push({ pointer: at, message: 'a response has either "result" or "error", never both' });
    }
    if (hasOwn(input, 'error')) checkError(input.error, at, problems);
    checkId(input, at, true, problems);
    checkUnknown(input, RESPONSE_MEMBERS, at, problems);
  } else {
    problems.push({
      pointer: at,
      message:
        'not a JSON-RPC message: a request or notification has "method", a response has "result" or "error"',
    });
    checkId(input, at, false, problems);
    checkUnknown(input, REQUEST_MEMBERS, at, problems);
  }
}

/**
 * Every problem in one JSON-RPC message (request, notification or response); empty when valid.
 *
 * Rules (spec §4–5): an object; `jsonrpc` exactly `"2.0"`; a call has a string `method`,
 * `params` (if present) an array or object, `id` (if present) a string, number or null; a
 * response has exactly one of `result` / `error` and an `id`; an error has an integer `code`
 * allowed by the spec and a string `message`; no other members.
 * @throws never.
 */
export function validateJsonRpcMessage(input: unknown): Problem[] {
  const problems: Problem[] = [];
  validateMessageAt(input, '', problems);
  return problems;
}

/**
 * Every problem in a JSON-RPC message or batch. A batch (array) must not be empty and each
 * member is checked as a message, its problems under `/<index>`.
 * @throws never.
 */
export function validateJsonRpc(input: unknown): Problem[] {
  if (!Array.isArray(input)) return validateJsonRpcMessage(input);
  if (input.length === 0) return [{ pointer: '', message: 'a batch must contain at least one message' }];
  const problems: Problem[] = [];
  input.forEach((member, i) => {
    validateMessageAt(member, `/${i}`, problems);
  });
  return problems;
}
