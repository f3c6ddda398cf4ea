import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import { definePrimitive, primitiveVerb, type PrimitiveMethod } from '../../../src/primitives/primitive.js';
import type { ProjectionView } from '../../../src/store/projection-view.js';
import { type Harness, request, startRuntime } from '../../runtime/helpers.js';

const echo: PrimitiveMethod = {
  method: 'echoText',
  description: 'Echoes text.',
  input: {
    type: 'object',
    required: ['text'],
    additionalProperties: false,
    properties: { text: { type: 'string' } },
  },
  output: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
  category: 'query',
  effects: {},
  handler: (input) => input,
};

/** A view whose start fails the first `failures` times. */
function flakyView(failures: number): ProjectionView<unknown> & { starts: number; stops: number } {
  const view = {
    starts: 0,
    stops: 0,
    name: 'flaky',
    projection: { name: 'flaky', initial: () => null, apply: () => null },
    start() {
      view.starts++;
      return view.starts <= failures ? Promise.reject(new Error('not yet')) : Promise.resolve();
    },
    stop() {
      view.stops++;
      return Promise.resolve();
    },
    state: () => null,
    position: () => 0,
    waitFor: () => Promise.resolve(),
    snapshot: () => {
      throw new Error('unused');
    },
  };
  return view;
}

describe('primitiveVerb', () => {
  it('turns a seed method into a snake_case verb under the primitive', () => {
    expect(primitiveVerb('state', 'createSession')).toBe('state.create_session');
    expect(primitiveVerb('guard', 'checkRateLimit')).toBe('guard.check_rate_limit');
    expect(primitiveVerb('memory', 'search')).toBe('memory.search');
    expect(primitiveVerb('micropayments', 'channel.open')).toBe('micropayments.channel.open');
  });

  it('refuses methods that are not lower camelCase words', () => {
    for (const bad of ['CreateSession', 'create_session', 'a.b.c', '', 'x-y', '.a']) {
      expect(() => primitiveVerb('state', bad), bad).toThrow(PlexusError);
    }
  });
});

describe('definePrimitive', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('builds one agent whose id is the name, with a verb and method-table row per method', () => {
    const p = definePrimitive({ name: 'demo', title: 'Demo', methods: [echo] });
    expect(p.name).toBe('demo');
    expect(p.agent.card.id).toBe('demo');
    expect(p.methods).toEqual({ 'demo.echoText': 'demo.echo_text' });
    expect(p.agent.card.capabilities.map((c) => c.verb)).toEqual(['demo.echo_text']);
    expect(p.agent.verbs[0]).toMatchObject({
      name: 'demo.echo_text',
      category: 'query',
      deterministic: true,
    });
  });

  it('runs the handler through a runtime, which checks params against the input schema', async () => {
    const p = definePrimitive({ name: 'demo', title: 'Demo', methods: [echo] });
    h = await startRuntime({ agents: [p.agent] });
    const ok = await h.runtime.invoke(request('demo.echo_text', { text: 'hi' }, 'demo'), { face: 'test' });
    expect(ok.envelope).toMatchObject({ kind: 'response', data: { text: 'hi' } });
    const bad = await h.runtime.invoke(request('demo.echo_text', { text: 1 }, 'demo'), { face: 'test' });
    expect(bad.envelope.kind).toBe('error');
    expect(JSON.stringify(bad.envelope.data)).toContain('/text');
  });

  it('refuses a method listed twice', () => {
    expect(() => definePrimitive({ name: 'demo', title: 'Demo', methods: [echo, echo] })).toThrow(/twice/);
  });

  it('starts its views once, may retry a failed start, and stops them once', async () => {
    const view = flakyView(1);
    const p = definePrimitive({ name: 'demo', title: 'Demo', methods: [echo], views: [view] });
    await expect(p.start()).rejects.toThrow('not yet');
    await p.start();
    await p.start();
    expect(view.starts).toBe(2);
    await p.stop();
    await p.stop();
    expect(view.stops).toBe(1);
  });
});
