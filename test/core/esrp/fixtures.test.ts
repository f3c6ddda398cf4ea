import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalizeEsrpText } from '../../../src/core/canonical/esrp.js';
import { sha256Hex } from '../../../src/core/hash.js';
import { parseEsrpRequest, validateEsrpRequest } from '../../../src/core/esrp/request.js';
import { validateEsrpResponse } from '../../../src/core/esrp/response.js';
import {
  canonicalizeEsrpDocumentText,
  canonicalizeEsrpRequestText,
  parseEsrpRequestText,
  parseEsrpResponseText,
  payloadHashText,
} from '../../../src/core/esrp/text.js';

const fixtures = new URL('../../fixtures/esrp-v1/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, fixtures), 'utf8');
const requests = readdirSync(new URL('requests/', fixtures)).filter((f) => f.endsWith('.json'));
const responses = readdirSync(new URL('responses/', fixtures)).filter((f) => f.endsWith('.json'));

describe('ESRP v1 golden fixtures', () => {
  it('has the four request and seven response fixtures', () => {
    expect(requests.sort()).toEqual([
      'async_video.json',
      'batch_translation.json',
      'image_generation.json',
      'simple_tts.json',
    ]);
    expect(responses).toHaveLength(7);
  });

  it.each(requests)('reproduces canonical/%s byte for byte', (file) => {
    const expected = readFileSync(new URL(`canonical/${file}`, fixtures));
    const actual = Buffer.from(canonicalizeEsrpRequestText(read(`requests/${file}`)), 'utf8');
    expect(actual.equals(expected)).toBe(true);
    expect(actual.toString('utf8')).toBe(expected.toString('utf8'));
  });

  it.each(requests)('reproduces the .sha256 of %s', (file) => {
    const expected = read(`canonical/${file.replace(/\.json$/, '.sha256')}`).trim();
    expect(sha256Hex(canonicalizeEsrpRequestText(read(`requests/${file}`)))).toBe(expected);
  });

  it.each(requests)('reproduces canonical/%s through the document entry point', (file) => {
    expect(canonicalizeEsrpDocumentText(read(`requests/${file}`))).toBe(read(`canonical/${file}`));
  });

  it.each(requests)('is idempotent on canonical/%s', (file) => {
    const canonical = read(`canonical/${file}`);
    expect(canonicalizeEsrpRequestText(canonical)).toBe(canonical);
    expect(canonicalizeEsrpText(canonical)).toBe(canonical);
  });

  it.each(requests)('validates requests/%s without problems', (file) => {
    expect(validateEsrpRequest(JSON.parse(read(`requests/${file}`)))).toEqual([]);
  });

  it.each(responses)('parses and validates responses/%s without problems', (file) => {
    expect(() => parseEsrpResponseText(read(`responses/${file}`))).not.toThrow();
    expect(validateEsrpResponse(JSON.parse(read(`responses/${file}`)))).toEqual([]);
  });

  it('fills the reference defaults for simple_tts (no mode, no variant, no optional fields)', () => {
    const request = parseEsrpRequestText(read('requests/simple_tts.json'));
    expect(request.mode).toEqual({ type: 'sync', timeout_ms: 600000 });
    expect('params_schema_ref' in request).toBe(false);
    expect('context' in request).toBe(false);
    expect('variant' in request.target).toBe(false);
  });

  it('computes payload hashes over target (variant null), inputs and params', () => {
    const simple = payloadHashText(read('requests/simple_tts.json'));
    expect(simple).toBe(
      sha256Hex(
        '{"inputs":[{"content_type":"text/plain","data":"Hello, world!","encoding":"utf-8","metadata":{},"name":"text"}],' +
          '"params":{"voice":"en-US-Standard-A"},"target":{"operation":"synthesize","service":"tts","variant":null}}',
      ),
    );
    const image = parseEsrpRequest(JSON.parse(read('requests/image_generation.json')));
    expect(payloadHashText(read('requests/image_generation.json'))).toMatch(/^[0-9a-f]{64}$/);
    expect(image.target.variant).toBe('fast');
  });
});
