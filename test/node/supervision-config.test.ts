import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { createNode, nodeInitFromConfig, parseNodeConfigText } from '../../src/node/index.js';

const GOOD = `
supervision:
  id: town
  strategy: one-for-one
  maxRestarts: 3
  periodMs: 300000
  children:
    - echo
    - { id: text, restart: temporary }
    - id: numbers
      strategy: rest-for-one
      maxRestarts: 2
      periodMs: 60000
      children: [math, demo]
`;

/** The error `parseNodeConfigText` throws for `yaml`. */
function errorOf(yaml: string): PlexusError {
  try {
    parseNodeConfigText(yaml, 'plexus.yaml');
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('plexus.yaml supervision', () => {
  it('reads a tree: agent ids as strings or mappings, nested supervisors, into NodeInit', () => {
    const config = parseNodeConfigText(GOOD, 'plexus.yaml');
    expect(config.supervision).toEqual({
      id: 'town',
      strategy: 'one-for-one',
      maxRestarts: 3,
      periodMs: 300_000,
      children: [
        { id: 'echo' },
        { id: 'text', restart: 'temporary' },
        {
          id: 'numbers',
          strategy: 'rest-for-one',
          maxRestarts: 2,
          periodMs: 60_000,
          children: [{ id: 'math' }, { id: 'demo' }],
        },
      ],
    });
    expect(nodeInitFromConfig(config).supervision).toBe(config.supervision);
  });

  it.each(['README.md', 'docs/supervision.md'])('accepts the supervision examples of %s', async (file) => {
    const text = await readFile(join(import.meta.dirname, '../..', file), 'utf8');
    const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1] ?? '')
      .filter((b) => b.includes('supervision:'));
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks)
      expect(parseNodeConfigText(block).supervision?.children.length).toBeGreaterThan(0);
  });

  it('names the root "root" when the configuration does not', () => {
    const config = parseNodeConfigText(
      'supervision: { strategy: one-for-all, maxRestarts: 1, periodMs: 1000, children: [echo] }',
    );
    expect(config.supervision?.id).toBe('root');
  });

  it.each([
    ['supervision: [echo]', 'supervision', 'must be a mapping'],
    [
      'supervision: { strategy: one-for-some, maxRestarts: 1, periodMs: 10, children: [a] }',
      'supervision.strategy',
      'must be one of one-for-one, one-for-all, rest-for-one, got "one-for-some"',
    ],
    [
      'supervision: { strategy: one-for-one, maxRestarts: -1, periodMs: 10, children: [a] }',
      'supervision.maxRestarts',
      'must be a whole number from 0',
    ],
    [
      'supervision: { strategy: one-for-one, maxRestarts: 1, periodMs: 0.5, children: [a] }',
      'supervision.periodMs',
      'must be a whole number from 1',
    ],
    [
      'supervision: { strategy: one-for-one, maxRestarts: 1, periodMs: 10, children: [] }',
      'supervision.children',
      'must be a non-empty list',
    ],
    [
      'supervision: { strategy: one-for-one, maxRestarts: 1, periodMs: 10, children: [a, a] }',
      'supervision.children[1]',
      '"a" appears twice',
    ],
    [
      'supervision: { strategy: one-for-one, maxRestarts: 1, periodMs: 10, children: [{ id: a, restart: sometimes }] }',
      'supervision.children[0].restart',
      'must be permanent, transient, temporary, true or false',
    ],
    [
      'supervision: { strategy: one-for-one, maxRestarts: 1, periodMs: 10, children: [{ id: a, colour: red }] }',
      'supervision.children[0].colour',
      'is not a known setting',
    ],
    [
      'supervision: { strategy: one-for-one, maxRestarts: 1, periodMs: 10, children: [{ id: s, strategy: one-for-all, maxRestarts: 1, periodMs: 10, children: [7] }] }',
      'supervision.children[0].children[0]',
      'must be an agent id or a mapping',
    ],
    [
      'supervision: { strategy: one-for-one, maxRestarts: 1, periodMs: 10, children: [{ id: s, maxRestarts: 1, periodMs: 10, children: [a] }] }',
      'supervision.children[0].strategy',
      'must be one of',
    ],
    [
      'supervision: { strategy: one-for-one, maxRestarts: 1, periodMs: 10, restart: temporary, children: [a] }',
      'supervision.restart',
      'is not a known setting',
    ],
  ])('refuses %s, naming %s', (yaml, field, message) => {
    const error = errorOf(yaml);
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.details).toEqual({ field });
    expect(error.message).toContain(`plexus.yaml: "${field}"`);
    expect(error.message).toContain(message);
  });

  it('refuses to start a node whose tree names an agent it does not host, naming the key', async () => {
    const config = parseNodeConfigText(
      'supervision: { strategy: one-for-one, maxRestarts: 1, periodMs: 1000, children: [echo, ech0] }',
    );
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-supervision-config-'));
    const node = createNode({
      ...nodeInitFromConfig(config),
      store: 'memory',
      port: 0,
      demo: ['echo'],
      primitives: false,
      dataDir,
    });
    const started = node.start();
    await expect(started).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(started).rejects.toThrow(
      'supervision.children[1] names agent "ech0", but this node has no such agent; its agents are: echo',
    );
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
});
