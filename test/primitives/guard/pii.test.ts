import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { detectPii, piiCategory, redactPii, redactPiiDeep } from '../../../src/primitives/guard/pii.js';
import {
  cardNetwork,
  ibanValid,
  luhnValid,
  ninoPrefixValid,
  ssnValid,
} from '../../../src/primitives/guard/pii-checks.js';

/** Secrets are assembled at run time so the source holds no credential-shaped literal. */
const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const JWT = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: 'ada', iat: 1 })}.c2lnbmF0dXJl`;
const GITHUB = `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`;
const SLACK = ['xoxb', '123456789012', '1234567890123', 'AbCdEfGhIjKlMnOpQrStUvWx'].join('-');
const AWS_ID = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');
const AWS_SECRET = ['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYEXAMPLEKEY'].join('/');
const OPENAI = ['sk', 'proj', 'Abcdefghijklmnopqrstuvwxyz012345'].join('-');
const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

function kinds(text: string): string[] {
  return detectPii(text).map((f) => f.kind);
}

/** Appends the Luhn check digit to `body`. */
function withLuhn(body: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(body + String(d))) return body + String(d);
  throw new Error('unreachable');
}

describe('pii checks', () => {
  it('luhnValid accepts published test card numbers and rejects a changed digit', () => {
    for (const n of ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117']) {
      expect(luhnValid(n)).toBe(true);
    }
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('41111x11')).toBe(false);
  });

  it('cardNetwork names the network from prefix and length', () => {
    expect(cardNetwork('4111111111111111')).toBe('visa');
    expect(cardNetwork('2221000000000009')).toBe('mastercard');
    expect(cardNetwork('378282246310005')).toBe('amex');
    expect(cardNetwork('3530111333300000')).toBe('jcb');
    expect(cardNetwork('30569309025904')).toBe('diners');
    expect(cardNetwork('1234567812345670')).toBeUndefined();
    expect(cardNetwork('41111111111111')).toBeUndefined(); // Visa is 13, 16 or 19 digits
  });

  it('ibanValid checks country length and mod 97', () => {
    for (const iban of [
      'DE89370400440532013000',
      'GB82WEST12345698765432',
      'FR1420041010050500013M02606',
      'NL91ABNA0417164300',
    ]) {
      expect(ibanValid(iban)).toBe(true);
    }
    expect(ibanValid('DE89370400440532013001')).toBe(false); // check digits fail
    expect(ibanValid('DE8937040044053201300')).toBe(false); // one short for DE
    expect(ibanValid('ZZ89370400440532013000')).toBe(false); // no such country
  });

  it('ssnValid follows the SSA rules for issuable numbers', () => {
    expect(ssnValid('536', '90', '4399')).toBe(true);
    expect(ssnValid('000', '12', '3456')).toBe(false);
    expect(ssnValid('666', '12', '3456')).toBe(false);
    expect(ssnValid('900', '12', '3456')).toBe(false);
    expect(ssnValid('536', '00', '4399')).toBe(false);
    expect(ssnValid('536', '90', '0000')).toBe(false);
    expect(ssnValid('078', '05', '1120')).toBe(false); // the Woolworth wallet number
  });

  it('ninoPrefixValid refuses letters and prefixes HMRC never allocates', () => {
    expect(ninoPrefixValid('AB')).toBe(true);
    for (const p of ['GB', 'BG', 'NK', 'TN', 'ZZ', 'DA', 'AO', 'QA']) expect(ninoPrefixValid(p)).toBe(false);
  });
});

describe('detectPii', () => {
  it('reports an e-mail address with its exact span and text', () => {
    expect(detectPii('mail ada@example.org now')).toEqual([
      { kind: 'email', start: 5, end: 20, text: 'ada@example.org' },
    ]);
  });

  it('finds each supported kind', () => {
    const cases: [string, string][] = [
      ['phone', 'call +44 20 7946 0958 today'],
      ['phone', 'call (415) 555-0132 today'],
      ['phone', 'call 415-555-0132 today'],
      ['credit_card', 'card 4111 1111 1111 1111 exp'],
      ['credit_card', 'card 4111-1111-1111-1111 exp'],
      ['credit_card', 'card 378282246310005.'],
      ['iban', 'pay DE89 3704 0044 0532 0130 00 please'],
      ['iban', 'pay GB82WEST12345698765432.'],
      ['us_ssn', 'ssn 536-90-4399 ok'],
      ['uk_nino', 'nino AB 12 34 56 C ok'],
      ['aws_access_key', `id ${AWS_ID} ok`],
      ['aws_secret_key', `aws_secret_access_key = ${AWS_SECRET}`],
      ['github_token', `token ${GITHUB} ok`],
      ['slack_token', `slack ${SLACK} ok`],
      ['api_key', `OPENAI_API_KEY=${OPENAI}`],
      ['private_key', `key:\n${PEM}\nend`],
      ['jwt', `Authorization: Bearer ${JWT}`],
    ];
    for (const [kind, text] of cases) expect(kinds(text), text).toEqual([kind]);
  });

  it('does not report look-alikes that fail their checks', () => {
    const clean = [
      'card 4111 1111 1111 1112 exp', // Luhn fails
      'order 1234567812345670', // Luhn passes, no network
      'pay DE89 3704 0044 0532 0130 01', // mod 97 fails
      'ssn 000-12-3456, 666-12-3456, 912-12-3456, 536-00-4399',
      'nino GB 12 34 56 A',
      'date 2026-03-18 at 12:00:00, version 1.2.3, id 12345',
      'eyJhbGciOi.eyJzdWIi.notjson',
      'sk-short',
      'write to ada at example dot org',
    ];
    for (const text of clean) expect(detectPii(text), text).toEqual([]);
  });

  it('finds a card number between other numbers', () => {
    const text = 'ref 12 4111 1111 1111 1111 2026';
    const [f] = detectPii(text);
    expect(f?.kind).toBe('credit_card');
    expect(f?.text).toBe('4111 1111 1111 1111');
  });

  it('keeps the credential when a credential and personal data overlap', () => {
    const text = `aws_secret_access_key: ${AWS_SECRET}`;
    expect(kinds(text)).toEqual(['aws_secret_key']);
    // A private key block swallows whatever it contains.
    expect(kinds(PEM.replace('MIIB', 'ada@example.org MIIB'))).toEqual(['private_key']);
  });

  it('treats an unterminated private key block as running to the end', () => {
    const text = 'x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE';
    expect(detectPii(text)).toEqual([
      { kind: 'private_key', start: 2, end: text.length, text: text.slice(2) },
    ]);
  });

  it('reports several findings in order of position', () => {
    const text = `ada@example.org, 536-90-4399, ${GITHUB}`;
    expect(kinds(text)).toEqual(['email', 'us_ssn', 'github_token']);
  });

  it('uses UTF-16 offsets', () => {
    const text = '😀 ada@example.org';
    const [f] = detectPii(text);
    expect(f?.start).toBe(3);
    expect(text.slice(f!.start, f!.end)).toBe('ada@example.org');
  });

  it('answers an empty list for empty text', () => {
    expect(detectPii('')).toEqual([]);
  });

  it('finds any Luhn-valid Visa number in letters-only text, with its span (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'Z'), maxLength: 20 }),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 14, maxLength: 14 }),
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'Z'), maxLength: 20 }),
        (before, body, after) => {
          const number = withLuhn(`4${body.join('')}`);
          const text = `${before} ${number} ${after}`;
          const cards = detectPii(text).filter((f) => f.kind === 'credit_card');
          expect(cards).toEqual([
            { kind: 'credit_card', start: before.length + 1, end: before.length + 17, text: number },
          ]);
          const broken = number.slice(0, 15) + String((Number(number[15]) + 1) % 10);
          expect(detectPii(`${before} ${broken} ${after}`).filter((f) => f.kind === 'credit_card')).toEqual(
            [],
          );
        },
      ),
    );
  });

  it('answers sorted, non-overlapping spans whose text is the slice (property)', () => {
    const piece = fc.constantFrom(
      'ada@example.org',
      '4111111111111111',
      ' ',
      'x',
      '536-90-4399',
      '+1 415 555 0132',
      '-',
      '.',
      '@',
      '7',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        const found = detectPii(text);
        let last = 0;
        for (const f of found) {
          expect(f.start).toBeGreaterThanOrEqual(last);
          expect(f.end).toBeGreaterThan(f.start);
          expect(f.end).toBeLessThanOrEqual(text.length);
          expect(text.slice(f.start, f.end)).toBe(f.text);
          expect(piiCategory(f.kind)).toBeDefined();
          last = f.end;
        }
      }),
    );
  });
});

describe('redactPii', () => {
  it('replaces each finding with [REDACTED:<kind>] and keeps the rest', () => {
    expect(redactPii('mail ada@example.org or call +44 20 7946 0958.')).toBe(
      'mail [REDACTED:email] or call [REDACTED:phone].',
    );
    expect(redactPii('nothing here')).toBe('nothing here');
  });

  it('leaves nothing detectable in the redacted text of known samples', () => {
    const text = `ada@example.org 4111111111111111 ${JWT} ${SLACK} DE89370400440532013000`;
    const redacted = redactPii(text);
    expect(detectPii(redacted)).toEqual([]);
    expect(redacted).toBe(
      '[REDACTED:email] [REDACTED:credit_card] [REDACTED:jwt] [REDACTED:slack_token] [REDACTED:iban]',
    );
  });
});

describe('redactPiiDeep', () => {
  it('redacts every string at any depth and keeps keys and other values', () => {
    const input: JsonValue = {
      user: { email: 'ada@example.org', age: 36, tags: ['ok', 'ssn 536-90-4399'] },
      ok: true,
      none: null,
    };
    const copy = structuredClone(input);
    expect(redactPiiDeep(input)).toEqual({
      user: { email: '[REDACTED:email]', age: 36, tags: ['ok', 'ssn [REDACTED:us_ssn]'] },
      ok: true,
      none: null,
    });
    expect(input).toEqual(copy); // not changed in place
  });

  it('keeps a __proto__ member as data', () => {
    const input = JSON.parse('{"__proto__": "ada@example.org"}') as JsonValue;
    const out = redactPiiDeep(input) as Record<string, JsonValue>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('[REDACTED:email]');
  });
});
