/**
 * Test helpers for the core records: type-level alignment of a schema with its TypeScript
 * type, and fast-check arbitraries of valid records.
 */
import fc from 'fast-check';
import type { EnvelopeSignature } from '../../../src/core/envelope.js';
import { ERROR_CODES, PlexusError } from '../../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import type { AgentCard } from '../../../src/core/records/agent-card.js';

/** The keys of `T` that are not optional. */
export type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

/** Runs `fn` and returns the PlexusError it throws; fails when it throws nothing else. */
export function errorOf(fn: () => unknown): PlexusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof PlexusError) return e;
    throw e;
  }
  throw new Error('expected a PlexusError to be thrown');
}

const B64URL = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('')];
const b64url = (n: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...B64URL), minLength: n, maxLength: n });

/** A valid D3 signature block. */
export const signatureArb: fc.Arbitrary<EnvelopeSignature> = fc.record({
  v: fc.constant(2 as const),
  ts: fc.integer({ min: 0, max: 2 ** 48 }),
  nonce: b64url(22),
  from: fc.string({ minLength: 1, maxLength: 20 }),
  pk: b64url(43),
  sig: b64url(86),
});

const lower = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'.split(''));
const segment = fc
  .tuple(
    lower,
    fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_'.split('')), maxLength: 8 }),
  )
  .map(([h, t]) => h + t);

/** A valid D6 verb name without version. */
export const verbArb: fc.Arbitrary<string> = fc
  .array(segment, { minLength: 2, maxLength: 3 })
  .map((s) => s.join('.'));

/** A small JSON Schema. */
export const schemaArb: fc.Arbitrary<boolean | JsonObject> = fc.constantFrom<boolean | JsonObject>(
  true,
  false,
  { type: 'object' },
  { type: 'string', minLength: 1 },
  { type: 'object', required: ['q'], properties: { q: { type: 'string' } } },
);

/**
 * Any JSON value as JSON text gives it back (fast-check's `jsonValue` may produce `-0`,
 * which JSON text writes as `0`; JSON's data model does not tell them apart).
 */
export const jsonArb: fc.Arbitrary<JsonValue> = fc
  .jsonValue({ maxDepth: 3 })
  .map((v) => JSON.parse(JSON.stringify(v)) as JsonValue);

/** An extensions map (`_x_` keys). */
export const extensionsArb: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.string({ maxLength: 8 }).map((k) => `_x_${k}`),
  jsonArb,
  { maxKeys: 3 },
);

const agentId = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s !== 'broadcast' && s !== '*');

/** A valid AgentCard, optional fields present or absent at random. */
export const agentCardArb: fc.Arbitrary<AgentCard> = fc
  .record(
    {
      id: agentId,
      name: fc.string({ minLength: 1, maxLength: 20 }),
      version: fc.string({ minLength: 1, maxLength: 10 }),
      tier: fc.constantFrom('L0', 'L1', 'L2', 'L3' as const),
      capabilities: fc.uniqueArray(
        fc.record(
          {
            verb: fc
              .tuple(verbArb, fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }))
              .map(([v, n]) => (n === undefined ? v : `${v}@${n}`)),
            description: fc.string({ maxLength: 20 }),
            input: schemaArb,
            output: schemaArb,
          },
          { requiredKeys: ['verb', 'input', 'output'] },
        ),
        { selector: (c) => c.verb, maxLength: 4 },
      ),
      description: fc.string({ maxLength: 40 }),
      protocols: fc.uniqueArray(
        fc.constantFrom('esrp', 'jsonrpc', 'a2a', 'mcp', 'nova', 'agentese', 'emergence'),
      ),
      endpoints: fc.array(fc.record({ protocol: fc.constantFrom('esrp', 'a2a', 'mcp'), url: fc.webUrl() }), {
        maxLength: 3,
      }),
      sandboxId: fc.string({ minLength: 1, maxLength: 10 }),
      revision: fc.nat(),
      origin: fc.constantFrom('local', 'remote' as const),
      signature: signatureArb,
      extensions: extensionsArb,
    },
    { requiredKeys: ['id', 'name', 'version', 'tier', 'capabilities'] },
  )
  .map((c) => c as AgentCard);

/** An RFC 3339 date-time as `Date#toISOString` writes it. */
export const isoDateArb: fc.Arbitrary<string> = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

/** A W3C traceparent (version 00, non-zero ids). */
export const traceparentArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.string({ unit: fc.constantFrom(...'0123456789abcdef'.split('')), minLength: 32, maxLength: 32 }),
    fc.string({ unit: fc.constantFrom(...'0123456789abcdef'.split('')), minLength: 16, maxLength: 16 }),
    fc.constantFrom('00', '01'),
  )
  .filter(([t, s]) => !/^0+$/.test(t) && !/^0+$/.test(s))
  .map(([t, s, f]) => `00-${t}-${s}-${f}`);

/** A non-empty string. */
export const idArb: fc.Arbitrary<string> = fc.string({ minLength: 1, maxLength: 24 });

/** A core ErrorData. */
export const errorDataArb: fc.Arbitrary<JsonObject> = fc.record(
  {
    code: fc.constantFrom(...ERROR_CODES),
    message: fc.string({ maxLength: 30 }),
    retryable: fc.boolean(),
    details: fc.dictionary(fc.string({ maxLength: 6 }), jsonArb, { maxKeys: 2 }),
  },
  { requiredKeys: ['code', 'message', 'retryable'] },
);

/** A copy of `obj` without `keys`. */
export function omit<T extends object, K extends keyof T>(obj: T, ...keys: K[]): Omit<T, K> {
  return Object.fromEntries(
    Object.entries(obj).filter(([k]) => !(keys as PropertyKey[]).includes(k)),
  ) as Omit<T, K>;
}
