/**
 * The JSON-RPC message of a decoded POST item (issue 13 item 1; docs/decisions/mcp.md MCP-46).
 * A plain request or notification — the shape of nearly every message a client sends — is
 * recognised by a direct check that accepts only what the SDK's `JSONRPCMessageSchema` accepts
 * (and leaves unchanged); anything else (responses, a related-task `_meta`, every malformed
 * item) goes through that schema as before, so the verdict and its message never differ.
 */
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON-RPC id or progress token the schema takes: a string or a safe integer. */
function isIdLike(value: unknown): boolean {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** True when `params` is absent or an object whose `_meta` (if any) holds only plain keys. */
function plainParams(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isPlainObject(params)) return false;
  if (!Object.hasOwn(params, '_meta')) return true;
  const meta = params['_meta'];
  if (!isPlainObject(meta)) return false;
  if (Object.hasOwn(meta, 'io.modelcontextprotocol/related-task')) return false;
  return !Object.hasOwn(meta, 'progressToken') || isIdLike(meta['progressToken']);
}

/** `item` when it is plainly a request or a notification the schema accepts unchanged, else `undefined`. */
export function plainRequestOrNotification(item: unknown): JSONRPCMessage | undefined {
  if (!isPlainObject(item)) return undefined;
  for (const key of Object.keys(item)) if (!MESSAGE_KEYS.has(key)) return undefined;
  if (item['jsonrpc'] !== '2.0' || typeof item['method'] !== 'string') return undefined;
  if (Object.hasOwn(item, 'id') && !isIdLike(item['id'])) return undefined;
  if (!plainParams(item['params'])) return undefined;
  return item as unknown as JSONRPCMessage;
}

/** The JSON-RPC message `item` is, or `undefined` when it is none. */
export function jsonRpcMessageOf(item: unknown): JSONRPCMessage | undefined {
  const plain = plainRequestOrNotification(item);
  if (plain !== undefined) return plain;
  const parsed = JSONRPCMessageSchema.safeParse(item);
  return parsed.success ? parsed.data : undefined;
}
