import { describe, expect, it } from 'vitest';
import { newJobId } from '../../src/runtime/jobs/job-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newJobId', () => {
  it('makes lower-case UUID v7 ids whose first 48 bits are the Unix milliseconds', () => {
    const at = Date.parse('2026-11-22T10:00:00.000Z') + 123_456_789;
    const id = newJobId(at);
    expect(id).toMatch(V7);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBeGreaterThanOrEqual(at);
  });

  it('makes strictly increasing ids, also many in one millisecond and when the clock steps back', () => {
    const at = Date.parse('2027-01-01T00:00:00.000Z');
    const ids = [
      ...Array.from({ length: 5000 }, () => newJobId(at)),
      ...Array.from({ length: 10 }, () => newJobId(at - 1000)),
      newJobId(at + 60_000),
    ];
    for (const id of ids) expect(id).toMatch(V7);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
