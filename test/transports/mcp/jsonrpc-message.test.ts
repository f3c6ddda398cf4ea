/**
 * The direct check of plain JSON-RPC requests and notifications (docs/decisions/mcp.md MCP-46)
 * never accepts what the SDK's `JSONRPCMessageSchema` refuses and never changes a message it
 * accepts: property-tested over generated messages, near-misses and junk, plus the cases that
 * must fall back to the schema.
 */
import fc from 'fast-check';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { jsonRpcMessageOf, plainRequestOrNotification } from '../../../src/transports/mcp/jsonrpc-message.js';

const idLike = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double(),
  fc.constant(2 ** 60),
  fc.constant(null),
  fc.boolean(),
);
const meta = fc.dictionary(
  fc.oneof(
    fc.constantFrom('progressToken', 'io.modelcontextprotocol/related-task', 'x'),
    fc.string({ maxLength: 4 }),
  ),
  fc.oneof(idLike, fc.object({ maxDepth: 1 })),
  { maxKeys: 3 },
);
const params = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.record(
    { name: fc.string({ maxLength: 6 }), arguments: fc.object({ maxDepth: 2 }) },
    { requiredKeys: [] },
  ),
  fc.record({ _meta: fc.oneof(meta, idLike) }, { requiredKeys: ['_meta'] }),
);
const message = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('2.0'), fc.constant('1.0'), fc.constant(2)),
    id: idLike,
    method: fc.oneof(fc.constantFrom('tools/call', 'ping', 'notifications/initialized'), fc.integer()),
    params,
    result: fc.object({ maxDepth: 1 }),
    error: fc.record({ code: fc.integer(), message: fc.string() }),
    extra: fc.string(),
  },
  { requiredKeys: [] },
);
const anything = fc.oneof(message, fc.jsonValue({ maxDepth: 3 }));

/** The item as JSON would deliver it (no `undefined` members). */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null)) as unknown;

describe('plainRequestOrNotification', () => {
  it('accepts only what the schema accepts, unchanged; jsonRpcMessageOf agrees with the schema', () => {
    fc.assert(
      fc.property(anything, (raw) => {
        const item = asJson(raw);
        const schema = JSONRPCMessageSchema.safeParse(item);
        const plain = plainRequestOrNotification(item);
        if (plain !== undefined) {
          expect(schema.success).toBe(true);
          expect(plain).toEqual(schema.data);
        }
        const either = jsonRpcMessageOf(item);
        expect(either !== undefined).toBe(schema.success);
        if (schema.success) expect(either).toEqual(schema.data);
      }),
      { numRuns: 1000 },
    );
  });

  it('takes the common messages directly', () => {
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'Echo.echo.echo', arguments: { input: 1 }, _meta: { progressToken: 'p' } },
    };
    expect(plainRequestOrNotification(call)).toBe(call);
    const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } };
    expect(plainRequestOrNotification(note)).toBe(note);
  });

  it('leaves responses, related-task metadata and malformed items to the schema', () => {
    for (const item of [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'x' } },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'm',
        params: { _meta: { 'io.modelcontextprotocol/related-task': {} } },
      },
      { jsonrpc: '2.0', id: 1.5, method: 'm' },
      { jsonrpc: '2.0', id: null, method: 'm' },
      { jsonrpc: '2.0', id: 1, method: 'm', params: [] },
      { jsonrpc: '2.0', id: 1, method: 'm', extra: true },
      { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { progressToken: 1.5 } } },
      JSON.parse('{"jsonrpc":"2.0","method":"m","__proto__":{}}') as unknown,
      [],
      null,
      'text',
    ]) {
      expect(plainRequestOrNotification(item)).toBeUndefined();
    }
    expect(jsonRpcMessageOf({ jsonrpc: '2.0', id: 1, result: {} })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {},
    });
    expect(jsonRpcMessageOf({ jsonrpc: '2.0', id: 1.5, method: 'm' })).toBeUndefined();
  });
});
