/**
 * The MCP tool invocation record (seed 004 Req. 13.4–13.5, 12.2): which tool was called
 * with which arguments, what it returned and how long it took — serialisable to JSON and
 * back without loss, with a schema version like the A2A envelope's.
 */
import { isJsonObject } from '../../core/json.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { Problem } from '../../core/problem.js';
import { DATE_TIME_SCHEMA, NON_EMPTY_STRING_SCHEMA } from '../../core/records/schema-parts.js';
import { JSON_SCHEMA_DIALECT, schemaValidator, throwIfProblems } from '../../core/schema-validator.js';
import { parseJson } from '../../core/parse-json.js';

/** The record version this node writes and the ones it reads. */
export const MCP_TOOL_INVOCATION_VERSION = '1.0';
/** Every record version this node reads. */
export const MCP_TOOL_INVOCATION_SUPPORTED_VERSIONS: readonly string[] = [MCP_TOOL_INVOCATION_VERSION];

/** One MCP tool call, as recorded. */
export interface McpToolInvocation {
  /** Record format version, `"1.0"`. */
  readonly schemaVersion: string;
  /** The tool name (namespaced `agentName.toolName`, Req. 5.6, or plain). */
  readonly tool: string;
  /** The arguments passed. */
  readonly arguments: JsonObject;
  /** What the tool returned (an MCP `CallToolResult`, or the error result). */
  readonly result: JsonValue;
  /** Wall time of the call in milliseconds. */
  readonly durationMs: number;
  /** True when the call failed (MCP `isError`, or a protocol error). */
  readonly isError?: boolean;
  /** The agent that owns the tool (Req. 5.1). */
  readonly agentId?: string;
  /** When the call started, RFC 3339. */
  readonly startedAt?: string;
  /** An id for this invocation (e.g. the JSON-RPC request id as a string). */
  readonly id?: string;
}

/** JSON Schema of {@link McpToolInvocation}, version 1.0. */
export const MCP_TOOL_INVOCATION_SCHEMA = {
  $schema: JSON_SCHEMA_DIALECT,
  $id: 'https://plexus.dev/schemas/wire/mcp-tool-invocation-1.0.json',
  title: 'McpToolInvocation',
  description: 'One MCP tool call as recorded (seed 004 Req. 13.4).',
  type: 'object',
  required: ['schemaVersion', 'tool', 'arguments', 'result', 'durationMs'],
  additionalProperties: false,
  properties: {
    schemaVersion: { type: 'string' },
    tool: NON_EMPTY_STRING_SCHEMA,
    arguments: { type: 'object' },
    result: true,
    durationMs: { type: 'number', minimum: 0 },
    isError: { type: 'boolean' },
    agentId: NON_EMPTY_STRING_SCHEMA,
    startedAt: DATE_TIME_SCHEMA,
    id: NON_EMPTY_STRING_SCHEMA,
  },
} as const;

function unsupportedVersion(value: unknown): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const v = value['schemaVersion'];
  return typeof v === 'string' && !MCP_TOOL_INVOCATION_SUPPORTED_VERSIONS.includes(v) ? v : undefined;
}

/**
 * Every problem of `value` as an MCP tool invocation record. An unknown `schemaVersion` is
 * the only problem reported (the rest is in a format this node does not know).
 */
export function validateMcpToolInvocation(value: unknown): Problem[] {
  const v = unsupportedVersion(value);
  if (v !== undefined) {
    return [
      {
        pointer: '/schemaVersion',
        message: `schema version ${JSON.stringify(v)} is not supported; this node reads ${MCP_TOOL_INVOCATION_SUPPORTED_VERSIONS.join(', ')}`,
      },
    ];
  }
  return schemaValidator().validate(MCP_TOOL_INVOCATION_SCHEMA, value);
}

/**
 * Returns `value` as a record when it is one.
 * @throws PlexusError `VERSION_MISMATCH` for an unknown `schemaVersion` (naming it and the
 *   supported ones); `INVALID_PARAMS` with `details.problems` otherwise.
 */
export function parseMcpToolInvocation(value: unknown): McpToolInvocation {
  const code = unsupportedVersion(value) === undefined ? 'INVALID_PARAMS' : 'VERSION_MISMATCH';
  throwIfProblems(validateMcpToolInvocation(value), 'MCP tool invocation record', code);
  return value as McpToolInvocation;
}

/**
 * The JSON text of a record (Req. 13.4).
 * @throws PlexusError as {@link parseMcpToolInvocation} does, for an invalid record.
 */
export function serializeMcpToolInvocation(record: McpToolInvocation): string {
  parseMcpToolInvocation(record);
  return JSON.stringify(record);
}

/**
 * Reads a record from JSON text (Req. 13.5).
 * @throws PlexusError `PARSE_ERROR` for text that is not JSON; otherwise as
 *   {@link parseMcpToolInvocation}.
 */
export function deserializeMcpToolInvocation(text: string): McpToolInvocation {
  return parseMcpToolInvocation(parseJson(text, 'MCP tool invocation record'));
}
