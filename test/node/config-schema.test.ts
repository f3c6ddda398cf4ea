/**
 * The configuration's schema (src/node/config-schema.ts): where a refusal points (JSON pointer,
 * line and column), the did-you-mean of an unknown key, and the JSON Schema it prints.
 */
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { ConfigProblem } from '../../src/node/config-errors.js';
import { nodeConfigJsonSchema } from '../../src/node/config-schema.js';
import { parseNodeConfig, parseNodeConfigText } from '../../src/node/config.js';

function refusal(run: () => unknown): { error: PlexusError; problem: ConfigProblem } {
  try {
    run();
  } catch (error) {
    if (error instanceof PlexusError && error.cause instanceof ConfigProblem)
      return { error, problem: error.cause };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('plexus.yaml refusals', () => {
  it('locate the field: JSON pointer, line and column', () => {
    const { error, problem } = refusal(() =>
      parseNodeConfigText('port: 1\nlimits:\n  maxInFlight: 2\n  bodyLimitBytes: 0\n', 'plexus.yaml'),
    );
    expect(error.message).toBe(
      'plexus.yaml: "limits.bodyLimitBytes" must be a whole number from 1 to 1073741824, got 0',
    );
    expect(error.details).toEqual({ field: 'limits.bodyLimitBytes' });
    expect(problem).toMatchObject({ pointer: '/limits/bodyLimitBytes', position: { line: 4, column: 19 } });
    expect(problem.message).toBe(
      'plexus.yaml:4:19: /limits/bodyLimitBytes must be a whole number from 1 to 1073741824, got 0',
    );
  });

  it('locate an item of a list, and an unknown key at the key', () => {
    const item = refusal(() =>
      parseNodeConfigText('auth:\n  apiKeys:\n    - { hash: nope, subject: ci }\n', 'plexus.yaml'),
    ).problem;
    expect(item).toMatchObject({ pointer: '/auth/apiKeys/0/hash', position: { line: 3, column: 15 } });
    const key = refusal(() => parseNodeConfigText('dev: true\n\nlimits: { bodyLimit: 1 }\n')).problem;
    expect(key).toMatchObject({ pointer: '/limits/bodyLimit', position: { line: 3, column: 11 } });
  });

  it('suggest the nearest known key', () => {
    expect(refusal(() => parseNodeConfigText('limits: { bodyLimit: 1 }')).error.message).toMatch(
      /"limits\.bodyLimit" is not a known setting; known: .*; did you mean "bodyLimitBytes"\?$/,
    );
    expect(refusal(() => parseNodeConfigText('prot: 3100')).error.message).toMatch(/did you mean "port"\?$/);
    expect(refusal(() => parseNodeConfigText('routing: { verb: {} }')).error.message).toMatch(
      /"routing\.verb" is not a routing option \(use .*\); did you mean "verbs"\?$/,
    );
    expect(refusal(() => parseNodeConfigText('zzzzzzzz: 1')).error.message).not.toMatch(/did you mean/);
  });

  it('point without a position when the configuration is a value, not text', () => {
    const { problem } = refusal(() => parseNodeConfig({ peers: [{ url: 'ftp://x' }] }, 'init'));
    expect(problem).toMatchObject({ pointer: '/peers/0/url', field: 'peers[0].url' });
    expect(problem.position).toBeUndefined();
    expect(problem.message).toBe('init: /peers/0/url must be an http:// or https:// URL, got "ftp://x"');
  });

  it('escape pointer tokens (RFC 6901)', () => {
    const { problem } = refusal(() => parseNodeConfigText('routing: { verbs: { a/b~c: 3 } }'));
    expect(problem.pointer).toBe('/routing/verbs/a~1b~0c');
  });
});

describe('the JSON Schema of plexus.yaml', () => {
  const schema = nodeConfigJsonSchema() as {
    $schema: string;
    properties: Record<string, { additionalProperties?: unknown; required?: string[] }>;
    additionalProperties: unknown;
  };

  it('is closed at the top and has every section', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['port', 'tls', 'limits', 'capabilities', 'budgets', 'routing', 'supervision']),
    );
    expect(schema.properties['limits']?.additionalProperties).toBe(false);
    expect(schema.properties['budgets']?.required).toEqual(['prices']);
  });

  it('describes the file as written (budgets.default, fallback_policies), not as the node holds it', () => {
    expect(schema.properties['budgets']).toMatchObject({ properties: { default: { type: 'number' } } });
    expect(schema.properties).toHaveProperty('fallback_policies');
  });
});
