import { describe, expect, it } from 'vitest';
import { normalizeTimestamp, timestampToMillis } from '../../../src/core/esrp/timestamp.js';
import { isCanonicalUuid, normalizeUuid } from '../../../src/core/esrp/uuid.js';
import { workspaceUriProblem } from '../../../src/core/esrp/workspace-uri.js';

describe('normalizeUuid', () => {
  it('lower-cases and hyphenates the four forms', () => {
    const want = '550e8400-e29b-41d4-a716-446655440000';
    for (const form of [
      '550e8400-e29b-41d4-a716-446655440000',
      '550E8400-E29B-41D4-A716-446655440000',
      '550e8400e29b41d4a716446655440000',
      '{550e8400-e29b-41d4-a716-446655440000}',
      'urn:uuid:550e8400-e29b-41d4-a716-446655440000',
    ]) {
      expect(normalizeUuid(form)).toBe(want);
    }
    expect(isCanonicalUuid(want)).toBe(true);
    expect(isCanonicalUuid(want.toUpperCase())).toBe(false);
  });

  it('refuses everything else', () => {
    for (const bad of [
      '',
      'x',
      '550e8400-e29b-41d4-a716-44665544000',
      '550e8400-e29b-41d4-a716-4466554400000',
      'g50e8400-e29b-41d4-a716-446655440000',
      '{550e8400e29b41d4a716446655440000}',
    ]) {
      expect(normalizeUuid(bad)).toBeUndefined();
    }
  });
});

describe('normalizeTimestamp', () => {
  it.each([
    ['2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z'],
    ['2025-01-01T00:00:05.000Z', '2025-01-01T00:00:05Z'],
    ['2025-01-01T00:00:00.1Z', '2025-01-01T00:00:00.100Z'],
    ['2025-01-01T00:00:00.123400Z', '2025-01-01T00:00:00.123400Z'],
    ['2025-01-01T00:00:00.1234Z', '2025-01-01T00:00:00.123400Z'],
    ['2025-01-01T00:00:00.123456789123Z', '2025-01-01T00:00:00.123456789Z'],
    ['2025-01-01t00:00:00z', '2025-01-01T00:00:00Z'],
    ['2025-01-01 00:00:00Z', '2025-01-01T00:00:00Z'],
    ['2025-01-01T00:30:00+01:00', '2024-12-31T23:30:00Z'],
    ['2024-02-29T23:00:00-01:00', '2024-03-01T00:00:00Z'],
  ])('reads %s as %s', (input, output) => {
    expect(normalizeTimestamp(input)).toBe(output);
  });

  it.each([
    '2025-02-29T00:00:00Z',
    '2025-13-01T00:00:00Z',
    '2025-01-01T24:00:00Z',
    '2025-01-01T00:00:60Z',
    '2025-01-01T00:00:00',
    '2025-01-01',
    'soon',
    '0000-01-01T00:00:00+01:00',
  ])('refuses %s', (input) => {
    expect(normalizeTimestamp(input)).toBeUndefined();
  });

  it('converts to Unix milliseconds', () => {
    expect(timestampToMillis('1970-01-01T00:00:01.5Z')).toBe(1500);
    expect(timestampToMillis('1970-01-01T01:00:00+01:00')).toBe(0);
    expect(timestampToMillis('1970-01-01T00:00:00.123456Z')).toBe(123);
  });
});

describe('workspaceUriProblem', () => {
  it('accepts namespaces of letters, digits, dot, underscore and hyphen', () => {
    for (const uri of [
      'workspace://artifacts/f',
      'workspace://temp-files/f',
      'workspace://my_ns/f',
      'workspace://data.v1/a/b',
      `workspace://${'a'.repeat(64)}/f`,
      `workspace://ns/${'a'.repeat(1024)}`,
    ]) {
      expect(workspaceUriProblem(uri)).toBeUndefined();
    }
  });

  it('explains each refusal', () => {
    expect(workspaceUriProblem('file://x/y')).toContain("must start with 'workspace://'");
    expect(workspaceUriProblem('workspace://a/b/../c')).toContain('traversal');
    expect(workspaceUriProblem(`workspace://${'a'.repeat(65)}/f`)).toContain('longer than 64');
    expect(workspaceUriProblem(`workspace://ns/${'a'.repeat(1025)}`)).toContain('longer than 1024');
    expect(workspaceUriProblem('workspace://with@symbol/f')).toContain('outside');
    expect(workspaceUriProblem('workspace:///etc/passwd')).toContain('empty namespace');
  });
});
