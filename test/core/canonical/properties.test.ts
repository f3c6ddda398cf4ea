import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalizeEsrp, canonicalizeEsrpText } from '../../../src/core/canonical/esrp.js';
import { canonicalizeJcs } from '../../../src/core/canonical/jcs.js';
import { PlexusError } from '../../../src/core/errors.js';

/** A JSON tree whose numbers are integers of any size (bigint) — the `esrp` domain. */
type Tree = null | boolean | string | bigint | Tree[] | { [key: string]: Tree };

const anyString = fc.string({ unit: 'binary', maxLength: 12 });

const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    anyString,
    fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }),
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.dictionary(anyString, tie('tree'), { maxKeys: 5 }),
  ),
}));

/** Writes `value` as JSON text with keys in a shuffled order and random whitespace. */
function writeShuffled(value: Tree, rand: () => number): string {
  const ws = (): string => [' ', '\n', '\t', '\r\n  ', ''][Math.floor(rand() * 5)] ?? '';
  if (value === null || typeof value === 'boolean') return ws() + String(value) + ws();
  if (typeof value === 'bigint') return ws() + value.toString() + ws();
  if (typeof value === 'string') return ws() + JSON.stringify(value) + ws();
  if (Array.isArray(value)) return `${ws()}[${value.map((v) => writeShuffled(v, rand)).join(',')}]${ws()}`;
  const keys = Object.keys(value).sort(() => rand() - 0.5);
  return `${ws()}{${keys.map((k) => `${ws()}${JSON.stringify(k)}${ws()}:${writeShuffled(value[k] as Tree, rand)}`).join(',')}}${ws()}`;
}

/** An independent, slow writer of the `esrp` profile, for comparison. */
function referenceEsrp(value: Tree): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') {
    let out = '"';
    for (const ch of value) {
      const cp = ch.codePointAt(0) ?? 0;
      if (ch === '"') out += '\\"';
      else if (ch === '\\') out += '\\\\';
      else if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += ch;
    }
    return out + '"';
  }
  if (Array.isArray(value)) return `[${value.map(referenceEsrp).join(',')}]`;
  const keys = Object.keys(value).sort((a, b) =>
    Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')),
  );
  return `{${keys.map((k) => `${referenceEsrp(k)}:${referenceEsrp(value[k] as Tree)}`).join(',')}}`;
}

const seeded = fc.integer({ min: 1, max: 2 ** 31 - 1 }).map((seed) => {
  let s = seed;
  return () => {
    s = (s * 48271) % 2147483647;
    return s / 2147483647;
  };
});

describe('canonicalizeJcs (properties)', () => {
  it('is idempotent: canon(parse(canon(x))) === canon(x)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const once = canonicalizeJcs(value);
        expect(canonicalizeJcs(JSON.parse(once))).toBe(once);
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on key order or whitespace', () => {
    const jsonTree = tree.filter(
      (t) => !JSON.stringify(t, (_k, v: unknown) => (typeof v === 'bigint' ? 0 : v)).includes('"__proto__"'),
    );
    fc.assert(
      fc.property(jsonTree, seeded, (value, rand) => {
        const asNumbers = (text: string): unknown => JSON.parse(text);
        const a = asNumbers(writeShuffled(value, rand));
        const b = asNumbers(writeShuffled(value, rand));
        expect(canonicalizeJcs(a)).toBe(canonicalizeJcs(b));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a string exactly when it has a lone surrogate, and otherwise writes JSON.stringify', () => {
    const unit = fc.oneof(
      fc.integer({ min: 0xd7f0, max: 0xe010 }).map((c) => String.fromCharCode(c)),
      fc.constantFrom('\\', 'u', 'd', '8', '0', 'a', '"'),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 8 }), (s) => {
        const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
        if (lone) expect(() => canonicalizeJcs({ k: [s] })).toThrow(PlexusError);
        else expect(canonicalizeJcs({ k: [s] })).toBe(`{"k":[${JSON.stringify(s)}]}`);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('canonicalizeEsrpText (properties)', () => {
  it('matches an independent reference writer', () => {
    fc.assert(
      fc.property(tree, seeded, (value, rand) => {
        expect(canonicalizeEsrpText(writeShuffled(value, rand))).toBe(referenceEsrp(value));
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent and independent of key order and whitespace', () => {
    fc.assert(
      fc.property(tree, seeded, (value, rand) => {
        const once = canonicalizeEsrpText(writeShuffled(value, rand));
        expect(canonicalizeEsrpText(once)).toBe(once);
        expect(canonicalizeEsrpText(writeShuffled(value, rand))).toBe(once);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps integers beyond 2^53 exact', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 256n), max: 2n ** 256n }), (n) => {
        const out = canonicalizeEsrpText(
          `{ "params": { "n": ${n.toString()} , "list": [ ${n.toString()} ] } }`,
        );
        expect(out).toBe(`{"params":{"list":[${n.toString()}],"n":${n.toString()}}}`);
        expect(canonicalizeEsrp({ n })).toBe(`{"n":${n.toString()}}`);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects every non-integer number by its source text, naming its pointer', () => {
    const digits = fc.stringMatching(/^[0-9]{1,6}$/);
    const nonInteger = fc.oneof(
      fc
        .tuple(fc.constantFrom('', '-'), fc.stringMatching(/^(0|[1-9][0-9]{0,5})$/), digits)
        .map(([sign, int, frac]) => `${sign}${int}.${frac}`),
      fc
        .tuple(
          fc.constantFrom('', '-'),
          fc.stringMatching(/^(0|[1-9][0-9]{0,5})(\.[0-9]{1,3})?$/),
          fc.constantFrom('e', 'E', 'e+', 'e-', 'E-'),
          digits,
        )
        .map(([sign, mantissa, e, exp]) => `${sign}${mantissa}${e}${exp}`),
    );
    fc.assert(
      fc.property(
        nonInteger,
        fc.array(fc.bigInt({ min: -1000n, max: 1000n }), { maxLength: 3 }),
        (text, before) => {
          const doc = `{"a":{"b":[${[...before.map(String), text].join(',')}]}}`;
          try {
            canonicalizeEsrpText(doc);
            expect.unreachable(`accepted ${text}`);
          } catch (error) {
            expect(error).toBeInstanceOf(PlexusError);
            expect((error as PlexusError).code).toBe('INVALID_PARAMS');
            expect((error as PlexusError).details).toEqual({ pointer: `/a/b/${before.length}` });
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
