import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createSchemaValidator } from '../../../src/core/schema-validator.js';
import {
  MCP_TOOL_INVOCATION_SCHEMA,
  deserializeMcpToolInvocation,
  parseMcpToolInvocation,
  serializeMcpToolInvocation,
  validateMcpToolInvocation,
} from '../../../src/wire/nova/index.js';
import type { McpToolInvocation } from '../../../src/wire/nova/index.js';
import type { RequiredKeys } from '../../core/records/helpers.js';
import { errorOf, idArb, isoDateArb, jsonArb } from '../../core/records/helpers.js';

const RECORD: McpToolInvocation = {
  schemaVersion: '1.0',
  tool: 'mercury.search',
  arguments: { query: 'crdt', limit: 5 },
  result: { content: [{ type: 'text', text: 'found 3' }], isError: false },
  durationMs: 12.5,
  agentId: 'MERCURY',
  startedAt: '2025-01-01T00:00:00Z',
};

const recordArb: fc.Arbitrary<McpToolInvocation> = fc.record(
  {
    schemaVersion: fc.constant('1.0'),
    tool: idArb,
    arguments: fc.dictionary(fc.string({ maxLength: 8 }), jsonArb, { maxKeys: 4 }),
    result: jsonArb,
    durationMs: fc
      .double({ min: 0, max: 1e7, noNaN: true, noDefaultInfinity: true })
      .map((d) => (Object.is(d, -0) ? 0 : d)),
    isError: fc.boolean(),
    agentId: idArb,
    startedAt: isoDateArb,
    id: idArb,
  },
  { requiredKeys: ['schemaVersion', 'tool', 'arguments', 'result', 'durationMs'] },
);

describe('MCP tool invocation record', () => {
  it('schema and type are aligned and the schema is strict-clean', () => {
    expectTypeOf<keyof McpToolInvocation>().toEqualTypeOf<
      keyof (typeof MCP_TOOL_INVOCATION_SCHEMA)['properties']
    >();
    expectTypeOf<RequiredKeys<McpToolInvocation>>().toEqualTypeOf<
      (typeof MCP_TOOL_INVOCATION_SCHEMA)['required'][number]
    >();
    expect(() => createSchemaValidator({ strict: true }).compile(MCP_TOOL_INVOCATION_SCHEMA)).not.toThrow();
  });

  it('accepts a valid record', () => {
    expect(validateMcpToolInvocation(RECORD)).toEqual([]);
    expect(parseMcpToolInvocation(RECORD)).toBe(RECORD);
  });

  it('round-trips through JSON text without loss (Req. 13.4–13.5, property)', () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        expect(deserializeMcpToolInvocation(serializeMcpToolInvocation(record))).toEqual(record);
      }),
      { numRuns: 300 },
    );
  });

  it('reports every problem', () => {
    expect(validateMcpToolInvocation({ schemaVersion: '1.0' }).map((p) => p.message)).toEqual([
      'missing required property "tool"',
      'missing required property "arguments"',
      'missing required property "result"',
      'missing required property "durationMs"',
    ]);
    expect(validateMcpToolInvocation({ ...RECORD, arguments: [], durationMs: -1, startedAt: 'now' })).toEqual(
      [
        { pointer: '/arguments', message: 'must be an object' },
        { pointer: '/durationMs', message: 'must be >= 0' },
        {
          pointer: '/startedAt',
          message: 'must be an RFC 3339 date-time with a time zone (e.g. 2025-01-01T00:00:00Z)',
        },
      ],
    );
    expect(errorOf(() => parseMcpToolInvocation({ ...RECORD, tool: '' })).code).toBe('INVALID_PARAMS');
  });

  it('gives VERSION_MISMATCH for an unknown record version', () => {
    const err = errorOf(() =>
      deserializeMcpToolInvocation(JSON.stringify({ ...RECORD, schemaVersion: '9.9' })),
    );
    expect(err.code).toBe('VERSION_MISMATCH');
    expect(err.message).toMatch(/"9\.9" is not supported; this node reads 1\.0/);
    expect(errorOf(() => deserializeMcpToolInvocation('nope')).code).toBe('PARSE_ERROR');
  });
});
