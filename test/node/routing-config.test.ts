import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { parseNodeConfigText } from '../../src/node/config.js';

function refusal(text: string): PlexusError {
  try {
    parseNodeConfigText(text);
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('plexus.yaml routing', () => {
  it('reads fallback_policies and routing', () => {
    const config = parseNodeConfigText(
      [
        'fallback_policies:',
        '  offline-first: [local-cache, queue-for-sync]',
        '  high-availability: [secondary-region, local-cache, error]',
        'routing:',
        '  verbs: { math.evaluate: offline-first }',
        '  groups: { secondary-region: ["http://127.0.0.1:3102"] }',
        '  queueForSync: { maxWaitMs: 60000, retryMs: 500 }',
      ].join('\n'),
    );
    expect(config.routing).toEqual({
      policies: {
        'offline-first': ['local-cache', 'queue-for-sync'],
        'high-availability': ['secondary-region', 'local-cache', 'error'],
      },
      verbs: { 'math.evaluate': 'offline-first' },
      groups: { 'secondary-region': ['http://127.0.0.1:3102'] },
      queueForSync: { maxWaitMs: 60000, retryMs: 500 },
    });
  });

  it.each([
    [
      'a policy that is not a list',
      'fallback_policies: { p: error }',
      /fallback_policies\.p" must be a list/,
    ],
    ['an unknown step', 'fallback_policies: { p: [teleport] }', /unknown fallback step "teleport"/],
    ['an unknown routing key', 'routing: { colour: blue }', /routing\.colour" is not a routing option/],
    ['a verb mapped to no policy', 'routing: { verbs: { a.b.c: nope } }', /no policy named "nope"/],
    ['a bad queue bound', 'routing: { queueForSync: { retryMs: 0 } }', /retryMs" must be a whole number/],
    ['a group with a bad target', 'routing: { groups: { g: ["town://x"] } }', /town/],
  ])('refuses %s naming the field', (_why, text, message) => {
    const error = refusal(text);
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toMatch(/^plexus\.yaml: /);
    expect(error.message).toMatch(message);
  });
});
