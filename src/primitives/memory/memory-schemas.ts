/**
 * JSON Schemas (2020-12) of the memory primitive's params and results (seed 003 §4.4). The
 * runtime checks params against them, so a bad field is answered with −32602 naming it.
 */

/** Most characters a memory's content may have. */
export const MAX_CONTENT_LENGTH = 100_000;
/** Most memories one search answers. */
export const MAX_SEARCH_LIMIT = 100;
/** Most memories one list page holds. */
export const MAX_LIST_LIMIT = 1000;

const ID = { type: 'string', minLength: 1, maxLength: 200 } as const;
const SESSION_ID = { type: 'string', minLength: 1, maxLength: 200 } as const;
const TIER = { enum: ['working', 'archival'] } as const;
const ISO_TIME = { type: 'string', format: 'date-time' } as const;
const PEERS = { type: 'array', items: { type: 'string' } } as const;

/** `memory.store` params. */
export const STORE_INPUT = {
  type: 'object',
  required: ['content'],
  additionalProperties: false,
  properties: {
    content: { type: 'string', minLength: 1, maxLength: MAX_CONTENT_LENGTH },
    sessionId: SESSION_ID,
    metadata: { type: 'object' },
    tier: TIER,
  },
} as const;

/** `memory.store` result. */
export const STORE_OUTPUT = {
  type: 'object',
  required: ['id', 'peerId', 'replicas'],
  properties: { id: { type: 'string' }, peerId: { type: 'string' }, replicas: PEERS, tier: TIER },
} as const;

/** A memory as `search` and `list` answer it. */
const MEMORY_ITEM = {
  type: 'object',
  required: ['id', 'content', 'metadata', 'peerId', 'createdAt', 'tier'],
  properties: {
    id: { type: 'string' },
    content: { type: 'string' },
    similarity: { type: 'number' },
    metadata: { type: 'object' },
    peerId: { type: 'string' },
    replicas: PEERS,
    sessionId: { type: ['string', 'null'] },
    tier: TIER,
    createdAt: ISO_TIME,
    archivedAt: ISO_TIME,
  },
} as const;

/** `memory.search` params. */
export const SEARCH_INPUT = {
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    query: { type: 'string', minLength: 1, maxLength: MAX_CONTENT_LENGTH },
    sessionId: SESSION_ID,
    limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT },
    threshold: { type: 'number', minimum: -1, maximum: 1 },
    tier: TIER,
  },
} as const;

/** `memory.search` result. */
export const SEARCH_OUTPUT = {
  type: 'object',
  required: ['memories', 'searchTime'],
  properties: {
    memories: { type: 'array', items: { ...MEMORY_ITEM, required: [...MEMORY_ITEM.required, 'similarity'] } },
    searchTime: { type: 'number', minimum: 0 },
  },
} as const;

/** Params naming one memory. */
export const ID_INPUT = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: ID },
} as const;

/** `memory.get` result. */
export const GET_OUTPUT = {
  type: 'object',
  required: ['content', 'metadata', 'peerId'],
  properties: { ...MEMORY_ITEM.properties },
} as const;

/** `memory.list` params. */
export const LIST_INPUT = {
  type: 'object',
  required: ['sessionId'],
  additionalProperties: false,
  properties: {
    sessionId: SESSION_ID,
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT },
    offset: { type: 'integer', minimum: 0 },
  },
} as const;

/** `memory.list` result. */
export const LIST_OUTPUT = {
  type: 'object',
  required: ['memories', 'total'],
  properties: { memories: { type: 'array', items: MEMORY_ITEM }, total: { type: 'integer', minimum: 0 } },
} as const;

/** `memory.delete` result. */
export const DELETE_OUTPUT = {
  type: 'object',
  required: ['deleted'],
  properties: { deleted: { type: 'boolean' } },
} as const;

/** `memory.archive` result. */
export const ARCHIVE_OUTPUT = {
  type: 'object',
  required: ['archived', 'tier'],
  properties: { archived: { type: 'boolean' }, tier: { const: 'archival' } },
} as const;
