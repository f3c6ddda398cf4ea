/**
 * Guesses which wire format a parsed JSON message is in, for `plexus validate --format auto`
 * and for faces that accept more than one format on one route.
 */
import { isJsonObject } from '../core/json.js';
import type { WireFormat } from './codec.js';

const EMERGENCE_KEYS = ['id', 'from', 'to', 'verb', 'data'] as const;

/**
 * The most likely format of `value`, or `undefined` when nothing fits. The rules, in order:
 * an array or an object with `jsonrpc` → `jsonrpc`; `esrp_version` with `status` →
 * `esrp-response`, otherwise with `esrp_version` → `esrp-request`; `schemaVersion` with
 * `type` → `nova`; a `verb` with any of `tenant_id`, `trace_id`, `span_id`, `session_id` →
 * `agentese`; the five Emergence keys → `emergence`.
 */
export function detectFormat(value: unknown): WireFormat | undefined {
  if (Array.isArray(value)) return 'jsonrpc';
  if (!isJsonObject(value)) return undefined;
  if ('jsonrpc' in value) return 'jsonrpc';
  if ('esrp_version' in value) return 'status' in value ? 'esrp-response' : 'esrp-request';
  if ('schemaVersion' in value && 'type' in value) return 'nova';
  if (
    'verb' in value &&
    ('tenant_id' in value || 'trace_id' in value || 'span_id' in value || 'session_id' in value)
  ) {
    return 'agentese';
  }
  if (EMERGENCE_KEYS.every((k) => k in value)) return 'emergence';
  return undefined;
}
