/**
 * JSON Schemas (2020-12) of the tool primitive's params and results, with the seed's field
 * names (seed 003 §4.3). The runtime checks params against them (−32602 naming the field)
 * and results against the output schemas.
 */
import type { JsonSchema } from '../../core/schema-validator.js';

const TEXT = (max: number): JsonSchema => ({ type: 'string', minLength: 1, maxLength: max });

/** A capability word (`search`). */
const CAPABILITY = { type: 'string', minLength: 1, maxLength: 64 } as const;

/** A JSON Schema as a value: an object or a boolean. */
const SCHEMA_VALUE = { type: ['object', 'boolean'] } as const;

/** `{input, output}` schemas of a tool. */
const TOOL_SCHEMA = {
  type: 'object',
  required: ['input', 'output'],
  additionalProperties: false,
  properties: { input: SCHEMA_VALUE, output: SCHEMA_VALUE },
} as const;

/** One tool as `discover` and `listRegistered` answer it. */
export const TOOL_INFO_SCHEMA = {
  type: 'object',
  required: [
    'id',
    'name',
    'peerId',
    'description',
    'capabilities',
    'reputation',
    'avgLatency',
    'schema',
    'verb',
  ],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    peerId: { type: 'string' },
    description: { type: 'string' },
    capabilities: { type: 'array', items: { type: 'string' } },
    reputation: { type: 'number', minimum: 0, maximum: 1 },
    avgLatency: { type: 'number', minimum: 0 },
    schema: TOOL_SCHEMA,
    verb: { type: 'string' },
    agent: { type: 'string' },
    geo: { type: 'string' },
    latency: { type: 'number', minimum: 0 },
  },
} as const;

const TOOLS_RESULT = {
  type: 'object',
  required: ['tools'],
  properties: { tools: { type: 'array', items: TOOL_INFO_SCHEMA } },
} as const;

/** `tool.register(name, description, schema, capabilities)` plus Plexus's `verb`, `agent`, `geo`, `reputation`. */
export const REGISTER_INPUT = {
  type: 'object',
  required: ['name', 'description', 'schema', 'capabilities'],
  additionalProperties: false,
  properties: {
    name: TEXT(128),
    description: { type: 'string', maxLength: 4000 },
    schema: TOOL_SCHEMA,
    capabilities: { type: 'array', items: CAPABILITY, maxItems: 64, uniqueItems: true },
    verb: TEXT(256),
    agent: TEXT(256),
    geo: TEXT(64),
    reputation: { type: 'number', minimum: 0, maximum: 1 },
  },
} as const;

/** `{toolId}`. */
export const REGISTER_OUTPUT = {
  type: 'object',
  required: ['toolId'],
  properties: { toolId: { type: 'string' } },
} as const;

/** `tool.discover(query, capabilities?, minReputation?, maxLatency?, geo?)`. */
export const DISCOVER_INPUT = {
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    query: { type: 'string', maxLength: 1000 },
    capabilities: { type: 'array', items: CAPABILITY, maxItems: 64 },
    minReputation: { type: 'number', minimum: 0, maximum: 1 },
    maxLatency: { type: 'number', minimum: 0 },
    geo: TEXT(64),
  },
} as const;

/** `{tools[]}`. */
export const DISCOVER_OUTPUT = TOOLS_RESULT;

/** `tool.invoke(toolId, params, sessionId?)`. */
export const INVOKE_INPUT = {
  type: 'object',
  required: ['toolId', 'params'],
  additionalProperties: false,
  properties: {
    toolId: TEXT(128),
    params: true,
    sessionId: TEXT(256),
  },
} as const;

/** `{result, duration, peerId}`. */
export const INVOKE_OUTPUT = {
  type: 'object',
  required: ['result', 'duration', 'peerId'],
  properties: {
    result: true,
    duration: { type: 'integer', minimum: 0 },
    peerId: { type: 'string' },
  },
} as const;

/** `tool.getAnalytics(toolId)`. */
export const ANALYTICS_INPUT = {
  type: 'object',
  required: ['toolId'],
  additionalProperties: false,
  properties: { toolId: TEXT(128) },
} as const;

/** `{invocations, avgLatency, successRate}`. */
export const ANALYTICS_OUTPUT = {
  type: 'object',
  required: ['invocations', 'avgLatency', 'successRate'],
  properties: {
    invocations: { type: 'integer', minimum: 0 },
    avgLatency: { type: 'number', minimum: 0 },
    successRate: { type: 'number', minimum: 0, maximum: 1 },
  },
} as const;

/** `tool.listRegistered()`: no params (absent params arrive as `null`). */
export const LIST_INPUT = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {},
} as const;

/** `{tools[]}`. */
export const LIST_OUTPUT = TOOLS_RESULT;
