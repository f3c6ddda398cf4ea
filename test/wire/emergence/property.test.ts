import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { ERROR_CODES, PlexusError } from '../../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import {
  decodeEmergence,
  emergenceErrorToPlexus,
  emergenceKindOfVerb,
  encodeEmergence,
  isEmergenceCoreVerb,
  validateEmergence,
} from '../../../src/wire/emergence/index.js';

const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;
const object = fc.dictionary(fc.string(), json, { maxKeys: 4 }) as fc.Arbitrary<JsonObject>;
const uuidV4 = fc.tuple(fc.uuid({ version: 4 }), fc.boolean()).map(([u, up]) => (up ? u.toUpperCase() : u));
const agentId = fc.string({ minLength: 1, maxLength: 24 }).filter((s) => s !== 'broadcast');
const extensions = fc.dictionary(
  fc.string({ maxLength: 10 }).map((s) => `_x_${s}`),
  json,
  { maxKeys: 3 },
) as fc.Arbitrary<JsonObject>;
const otherVerb = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,12}$/).filter((v) => !isEmergenceCoreVerb(v));

const verbAndData: fc.Arbitrary<{ verb: string; data: JsonObject }> = fc.oneof(
  object.map((data) => ({ verb: 'HELLO', data })),
  object.map((data) => ({ verb: 'HELP', data })),
  fc.tuple(json, object).map(([result, rest]) => ({ verb: 'DONE', data: { ...rest, result } })),
  fc
    .tuple(fc.integer({ min: -1000, max: 1000 }), fc.string(), object)
    .map(([code, msg, rest]) => ({ verb: 'ERROR', data: { ...rest, code, msg } })),
  fc.tuple(otherVerb, object).map(([verb, data]) => ({ verb, data })),
);

const wireMessage = fc
  .record({
    id: uuidV4,
    from: agentId,
    to: fc.oneof(agentId, fc.constant('broadcast')),
    vd: verbAndData,
    ext: extensions,
  })
  .map(({ id, from, to, vd, ext }) => ({ ...ext, id, from, to, verb: vd.verb, data: vd.data }));

const envelope: fc.Arbitrary<Envelope> = fc
  .record({
    id: uuidV4,
    from: agentId,
    to: fc.oneof(agentId, fc.constant('broadcast')),
    vd: verbAndData,
    ext: fc.option(
      extensions.filter((e) => Object.keys(e).length > 0),
      { nil: undefined },
    ),
  })
  .map(({ id, from, to, vd, ext }) => {
    const env: Envelope = { id, kind: emergenceKindOfVerb(vd.verb), from, to, verb: vd.verb, data: vd.data };
    return ext === undefined ? env : { ...env, extensions: ext };
  });

describe('Emergence codec properties', () => {
  it('every generated wire message is valid', () => {
    fc.assert(fc.property(wireMessage, (w) => validateEmergence(w).length === 0));
  });

  it('encode(decode(w)) deep-equals w', () => {
    fc.assert(
      fc.property(wireMessage, (w) => {
        expect(encodeEmergence(decodeEmergence(w))).toEqual(w);
      }),
    );
  });

  it('decode(encode(e)) equals e for envelopes Emergence can express', () => {
    fc.assert(
      fc.property(envelope, (e) => {
        expect(decodeEmergence(encodeEmergence(e))).toEqual(e);
      }),
    );
  });

  it('a Plexus error survives an Emergence hop exactly', () => {
    const plexusError = fc
      .record({
        code: fc.constantFrom(...ERROR_CODES),
        message: fc.string(),
        retryable: fc.boolean(),
        details: fc.option(object, { nil: undefined }),
      })
      .map(({ code, message, retryable, details }) =>
        details === undefined
          ? new PlexusError(code, message, { retryable })
          : new PlexusError(code, message, { retryable, details }),
      );
    fc.assert(
      fc.property(uuidV4, agentId, agentId, plexusError, (id, from, to, error) => {
        const data = error.toData() as unknown as JsonObject;
        const wire = encodeEmergence({ id, kind: 'error', from, to, verb: 'HELP', data });
        expect(emergenceErrorToPlexus(decodeEmergence(wire)).toData()).toEqual(error.toData());
      }),
    );
  });

  it('an extra key without _x_ is always reported at its pointer', () => {
    const badKey = fc
      .string({ minLength: 1, maxLength: 8 })
      .filter((k) => !k.startsWith('_x_') && !['id', 'from', 'to', 'verb', 'data', '__proto__'].includes(k));
    fc.assert(
      fc.property(wireMessage, badKey, (w, key) => {
        const problems = validateEmergence({ ...w, [key]: 1 });
        const pointer = `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        expect(problems.map((p) => p.pointer)).toEqual([pointer]);
      }),
    );
  });
});
