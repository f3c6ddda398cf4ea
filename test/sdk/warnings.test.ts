/**
 * The SDK and eras (seed 002 §10.3, §8.2): `onWarning` receives the warnings of a deprecated
 * era, in process and over ESRP; a sunset era fails with an InvocationError naming the
 * fallback verb.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerbSpec } from '../../src/core/records/verb-spec.js';
import { defineAgent } from '../../src/runtime/index.js';
import { InvocationError, createPlexus, remoteClient, type EraWarning } from '../../src/sdk/index.js';
import { esrpWarningsOf } from '../../src/sdk/warnings.js';
import { spec } from '../runtime/helpers.js';
import { startNode, type TestNode } from '../transports/http/helpers.js';

const era = (name: string, status: VerbSpec['status'], sunsetAt: string): VerbSpec =>
  spec(name, {
    status,
    deprecation: { deprecatedAt: '2020-01-01', sunsetAt, replacement: 'eras.fresh@1' },
  });

let node: TestNode;

beforeAll(async () => {
  node = await startNode();
  await node.runtime.agents.add(
    defineAgent({
      card: {
        id: 'eras',
        name: 'Eras',
        version: '1',
        tier: 'L3',
        capabilities: [
          { verb: 'eras.old', input: true, output: true },
          { verb: 'eras.gone', input: true, output: true },
        ],
      },
      verbs: [era('eras.old', 'deprecated', '2999-01-01'), era('eras.gone', 'sunset', '2021-01-01')],
      create: () => ({ 'eras.old': () => 'still here', 'eras.gone': () => 'never' }),
    }),
  );
});

afterAll(async () => {
  await node.close();
});

describe('in process', () => {
  it('hands each warning to onWarning and resolves with the output', async () => {
    const plexus = createPlexus({ runtime: node.runtime, log: node.log });
    const seen: EraWarning[] = [];
    const out = await plexus.invoke('eras.old', null, { onWarning: (w) => seen.push(w) });
    expect(out).toBe('still here');
    expect(seen.map((w) => w.verb)).toEqual(['eras.old@1']);
    // a listener that throws does not fail the call
    await expect(
      plexus.invoke('eras.old', null, {
        onWarning: () => {
          throw new Error('listener bug');
        },
      }),
    ).resolves.toBe('still here');
  });

  it('fails a sunset era with the fallback verb and the recovery fields', async () => {
    const plexus = createPlexus({ runtime: node.runtime, log: node.log });
    const error = await plexus.invoke('eras.gone', null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvocationError);
    expect(error).toMatchObject({
      code: 'VERB_SUNSET',
      category: 'not_found',
      fallbackVerb: 'eras.fresh@1',
      retryAfter: undefined,
    });
    expect((error as InvocationError).suggestedAction).toContain('eras.fresh@1');
  });
});

describe('over ESRP', () => {
  it('reads the warnings of the answer and the hints of a failure', async () => {
    const remote = remoteClient(node.base);
    const seen: EraWarning[] = [];
    expect(await remote.invoke('eras.old', null, { onWarning: (w) => seen.push(w) })).toBe('still here');
    expect(seen[0]).toMatchObject({ verb: 'eras.old@1', replacement: 'eras.fresh@1' });
    const error = await remote.invoke('eras.gone', null).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'VERB_SUNSET', fallbackVerb: 'eras.fresh@1', category: 'not_found' });
  });

  it('finds no warning in bodies without any, whatever their shape', () => {
    expect(esrpWarningsOf(null)).toEqual([]);
    expect(esrpWarningsOf({ outputs: 'x', error: 3 })).toEqual([]);
    expect(esrpWarningsOf({ outputs: [{ metadata: { warnings: [{ type: 'other' }] } }] })).toEqual([]);
  });
});
