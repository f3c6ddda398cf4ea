import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { ERROR_TABLE } from '../../../src/core/errors.js';
import { plexusCodeFromJsonRpc } from '../../../src/wire/jsonrpc/error-table.js';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import type { Problem } from '../../../src/core/problem.js';
import {
  decodeJsonRpc,
  decodeJsonRpcBatch,
  encodeJsonRpc,
  handleJsonRpcValue,
  isAllowedJsonRpcErrorCode,
  jsonRpcIdText,
  validateJsonRpc,
  validateJsonRpcMessage,
} from '../../../src/wire/jsonrpc/index.js';
import type { JsonRpcId } from '../../../src/wire/jsonrpc/index.js';

const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;
const object = fc.dictionary(fc.string(), json, { maxKeys: 4 }) as fc.Arbitrary<JsonObject>;
const nonObject = json.filter((v) => v === null || typeof v !== 'object' || Array.isArray(v));
const params = fc.oneof(fc.array(json, { maxLength: 4 }), object);
const id: fc.Arbitrary<JsonRpcId> = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.constant(null),
);
const errorCode = fc
  .oneof(
    fc.constantFrom(-32700, -32600, -32601, -32602, -32603),
    fc.integer({ min: -32099, max: -32000 }),
    fc.integer({ min: -100000, max: 100000 }),
  )
  .filter(isAllowedJsonRpcErrorCode);

const optional = <T>(key: string, arb: fc.Arbitrary<T>): fc.Arbitrary<Record<string, T>> =>
  fc.option(arb, { nil: undefined }).map((v) => (v === undefined ? {} : { [key]: v }));

const wireMessage: fc.Arbitrary<Record<string, JsonValue>> = fc.oneof(
  fc
    .tuple(fc.string(), optional('params', params), id)
    .map(([method, p, i]) => ({ jsonrpc: '2.0', method, ...p, id: i })),
  fc.tuple(fc.string(), optional('params', params)).map(([method, p]) => ({ jsonrpc: '2.0', method, ...p })),
  fc.tuple(json, id).map(([result, i]) => ({ jsonrpc: '2.0', result, id: i })),
  fc
    .tuple(errorCode, fc.string(), optional('data', json), id)
    .map(([code, message, d, i]) => ({ jsonrpc: '2.0', error: { code, message, ...d }, id: i })),
);

const idFields = id.map((i): { id: string; extensions?: JsonObject } =>
  typeof i === 'string' ? { id: i } : { id: jsonRpcIdText(i), extensions: { _x_jsonrpc_id: i } },
);
const addressless = { from: '', to: '' };

const envelope: fc.Arbitrary<Envelope> = fc.oneof(
  fc
    .tuple(idFields, fc.string(), fc.oneof(params, fc.constant(null)))
    .map(([ids, verb, data]): Envelope => ({ ...ids, kind: 'request', ...addressless, verb, data })),
  fc
    .tuple(fc.string(), fc.oneof(params, fc.constant(null)))
    .map(([verb, data]): Envelope => ({ id: '', kind: 'notification', ...addressless, verb, data })),
  fc
    .tuple(idFields, json)
    .map(([ids, data]): Envelope => ({ ...ids, kind: 'response', ...addressless, verb: '', data })),
  fc
    .tuple(idFields, errorCode, fc.string(), fc.oneof(fc.constant(undefined), object, nonObject))
    .map(([ids, code, message, wireData]): Envelope => {
      const plexus = plexusCodeFromJsonRpc(code);
      const data: JsonObject = { code: plexus, message, retryable: ERROR_TABLE[plexus].retryable };
      const extensions: JsonObject = { ...ids.extensions, _x_jsonrpc_code: code };
      if (wireData !== undefined) {
        if (typeof wireData === 'object' && wireData !== null && !Array.isArray(wireData))
          data.details = wireData;
        else extensions._x_jsonrpc_error_data = wireData;
      }
      return { id: ids.id, kind: 'error', ...addressless, verb: '', data, extensions };
    }),
);

describe('JSON-RPC codec properties', () => {
  it('every generated wire message is valid', () => {
    fc.assert(fc.property(wireMessage, (w) => validateJsonRpcMessage(w).length === 0));
  });

  it('encode(decode(w)) deep-equals w', () => {
    fc.assert(
      fc.property(wireMessage, (w) => {
        expect(encodeJsonRpc(decodeJsonRpc(w))).toEqual(w);
      }),
    );
  });

  it('a batch decodes member by member and encodes back', () => {
    fc.assert(
      fc.property(fc.array(wireMessage, { minLength: 1, maxLength: 5 }), (batch) => {
        expect(decodeJsonRpcBatch(batch).map((e) => encodeJsonRpc(e))).toEqual(batch);
      }),
    );
  });

  it('decode(encode(e)) equals e for envelopes JSON-RPC can express', () => {
    fc.assert(
      fc.property(envelope, (e) => {
        expect(decodeJsonRpc(encodeJsonRpc(e))).toEqual(e);
      }),
    );
  });

  it('an unknown member is always reported at its pointer, and in a batch under its index', () => {
    const badKey = fc
      .string({ minLength: 1, maxLength: 8 })
      .filter((k) => !['jsonrpc', 'method', 'params', 'id', 'result', 'error', '__proto__'].includes(k));
    fc.assert(
      fc.property(wireMessage, badKey, fc.nat(3), (w, key, at) => {
        const pointer = `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        const bad = { ...w, [key]: 0 };
        expect(validateJsonRpcMessage(bad).map((p: Problem) => p.pointer)).toEqual([pointer]);
        const batch = [...Array<JsonValue>(at).fill(w), bad];
        expect(validateJsonRpc(batch).map((p: Problem) => p.pointer)).toEqual([`/${at}${pointer}`]);
      }),
    );
  });
});

describe('handleJsonRpcValue properties', () => {
  const call = fc
    .tuple(fc.string(), optional('params', params), fc.option(id, { nil: undefined }))
    .map(([method, p, i]): Record<string, JsonValue> =>
      i === undefined ? { jsonrpc: '2.0', method, ...p } : { jsonrpc: '2.0', method, ...p, id: i },
    );

  it('answers every request of a batch once, with its id, and no notification', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 6 }), async (batch) => {
        const reply = await handleJsonRpcValue(batch, (_m, p) => Promise.resolve(p ?? null));
        const requests = batch.filter((m) => 'id' in m);
        if (requests.length === 0) {
          expect(reply).toBeUndefined();
          return;
        }
        expect(reply).toEqual(requests.map((m) => ({ jsonrpc: '2.0', result: m.params ?? null, id: m.id })));
      }),
    );
  });
});
