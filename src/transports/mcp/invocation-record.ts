/**
 * The invocation record of one MCP `tools/call` (issue 13 item 7, seed 004 Req 12.2, 13.4;
 * docs/decisions/mcp.md MCP-16): the tool, the source agent, the caller, the arguments, the
 * result, the duration and the outcome, kept in the event log as an `mcp.invocation` event
 * (tenant-scoped) and read back by {@link invocationRecordOf}, which accepts exactly what
 * {@link invocationRecordData} writes (a record round-trips through JSON unchanged).
 * Arguments or results larger than {@link RECORD_VALUE_LIMIT} bytes of JSON are kept as
 * their size and SHA-256 instead (a record is evidence of a call, not a copy of its data).
 */
import { PlexusError } from '../../core/errors.js';
import { sha256Hex } from '../../core/hash.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';

/** The log event type of an invocation record. */
export const MCP_INVOCATION_EVENT = 'mcp.invocation';

declare module '../../store/event-map.js' {
  interface EventMap {
    /** One MCP tool call (data: {@link invocationRecordData}). */
    'mcp.invocation': JsonObject;
  }
}

/** Largest argument or result, bytes of JSON, kept whole in a record. */
export const RECORD_VALUE_LIMIT = 16_384;

/** The outcome of a call: `success`, or the Plexus error code of its failure. */
export type InvocationOutcome = string;

/** One tool call. */
export interface InvocationRecord {
  /** The tool name the client called. */
  readonly tool: string;
  /** The agent that served it (its id; `none` when no agent was reached). */
  readonly agent: string;
  /** The verb behind the tool. */
  readonly verb: string;
  /** The caller's principal id. */
  readonly principal: string;
  /** The call's `arguments` (or their `{"plexus/omitted": {bytes, sha256}}` when too large). */
  readonly arguments: JsonValue;
  /** The `CallToolResult` sent (or its omission marker). */
  readonly result: JsonValue;
  /** Wall time of the call, milliseconds (≥ 0, finite). */
  readonly durationMs: number;
  /** `success`, or the error code. */
  readonly outcome: InvocationOutcome;
  /** When the call started, ISO 8601. */
  readonly at: string;
}

/** `value` as kept in a record: itself, or its size and hash when larger than the limit. */
export function recordedValue(value: unknown, limit = RECORD_VALUE_LIMIT): JsonValue {
  const text = JSON.stringify(value ?? null);
  const bytes = Buffer.byteLength(text);
  if (bytes <= limit) return JSON.parse(text) as JsonValue;
  return { 'plexus/omitted': { bytes, sha256: sha256Hex(text) } };
}

/** The log data of `record`, keys in a fixed order. */
export function invocationRecordData(record: InvocationRecord): JsonObject {
  return {
    tool: record.tool,
    agent: record.agent,
    verb: record.verb,
    principal: record.principal,
    arguments: record.arguments,
    result: record.result,
    durationMs: record.durationMs,
    outcome: record.outcome,
    at: record.at,
  };
}

function text(data: JsonObject, key: string): string {
  const value = data[key];
  if (typeof value !== 'string' || value === '') {
    throw new PlexusError('INVALID_PARAMS', `an invocation record's ${key} must be a non-empty string`);
  }
  return value;
}

/**
 * The record in `data` (an `mcp.invocation` event's data).
 * @throws PlexusError `INVALID_PARAMS` naming the first field that is missing or malformed.
 */
export function invocationRecordOf(data: unknown): InvocationRecord {
  if (!isJsonObject(data)) throw new PlexusError('INVALID_PARAMS', 'an invocation record must be an object');
  const durationMs = data['durationMs'];
  if (typeof durationMs !== 'number' || !Number.isFinite(durationMs) || durationMs < 0) {
    throw new PlexusError('INVALID_PARAMS', "an invocation record's durationMs must be a finite number ≥ 0");
  }
  if (!('arguments' in data) || !('result' in data)) {
    throw new PlexusError('INVALID_PARAMS', 'an invocation record must carry arguments and result');
  }
  return {
    tool: text(data, 'tool'),
    agent: text(data, 'agent'),
    verb: text(data, 'verb'),
    principal: text(data, 'principal'),
    arguments: data['arguments'],
    result: data['result'],
    durationMs,
    outcome: text(data, 'outcome'),
    at: text(data, 'at'),
  };
}
