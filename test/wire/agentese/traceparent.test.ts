import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatTraceparent,
  isW3cSpanId,
  isW3cTraceId,
  parseTraceparent,
} from '../../../src/wire/agentese/index.js';
import { errorOf, traceparentArb } from '../../core/records/helpers.js';

describe('traceparent', () => {
  it('parses and formats the W3C example', () => {
    const text = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(parseTraceparent(text)).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      flags: '01',
    });
    expect(
      formatTraceparent({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' }),
    ).toBe(text);
  });

  it('format(parse(t)) is t (property)', () => {
    fc.assert(
      fc.property(traceparentArb, (t) => {
        expect(formatTraceparent(parseTraceparent(t)!)).toBe(t);
      }),
    );
  });

  it('rejects zero ids, upper case, other versions and bad lengths', () => {
    for (const t of [
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
    ]) {
      expect(parseTraceparent(t)).toBeUndefined();
    }
    expect(isW3cTraceId('abc123')).toBe(false);
    expect(isW3cSpanId('def456')).toBe(false);
    expect(
      errorOf(() => formatTraceparent({ traceId: 'abc123', spanId: '00f067aa0ba902b7' })).message,
    ).toMatch(/trace id "abc123"/);
    expect(
      errorOf(() => formatTraceparent({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: 'def456' }))
        .message,
    ).toMatch(/span id "def456"/);
    expect(
      errorOf(() =>
        formatTraceparent({
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
          spanId: '00f067aa0ba902b7',
          flags: 'x',
        }),
      ).code,
    ).toBe('INVALID_PARAMS');
  });
});
