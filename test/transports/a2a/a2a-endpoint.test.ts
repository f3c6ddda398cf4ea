/**
 * The per-request costs the A2A face no longer pays (docs/decisions/a2a.md A2A-29), and that
 * they change no answer: an endpoint's card lists stay the same arrays while no card changes
 * and follow a registration, an update and a removal at once (a message resolves against the
 * registry as it is now, never a stale skill); a request's signal aborts when its client goes
 * away before the answer, and is left alone once the answer was sent whole.
 */
import { request as httpRequest } from 'node:http';
import { Role, type Message } from '@a2a-js/sdk';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { PlexusError } from '../../../src/core/errors.js';
import type { Runtime } from '../../../src/runtime/index.js';
import { openEventLog } from '../../../src/store/event-map.js';
import { a2aCallContext } from '../../../src/transports/a2a/a2a-call-context.js';
import { agentEndpoint, nodeEndpoint } from '../../../src/transports/a2a/a2a-endpoint.js';
import { messageCall } from '../../../src/transports/a2a/message-verb.js';
import { cap, card, gate, startRuntime, type Harness } from '../../runtime/helpers.js';

function naming(verb: string, input: JsonValue = {}): Message {
  return {
    messageId: 'm-1',
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [
      {
        content: { $case: 'data', value: { verb, input } },
        metadata: undefined,
        filename: '',
        mediaType: '',
      },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

describe('A2A endpoints keep their card lists until a card changes', () => {
  let harness: Harness;
  let runtime: Runtime;

  beforeEach(async () => {
    harness = await startRuntime();
    runtime = harness.runtime;
  });

  afterEach(async () => {
    await harness.close();
  });

  const registry = () => runtime.agents.registry;
  const fresh = () => {
    const all = registry().list();
    return {
      local: all.filter((c) => (c.origin ?? 'local') === 'local'),
      remote: all.filter((c) => (c.origin ?? 'local') !== 'local'),
    };
  };
  const callOf = (verb: string) => {
    const endpoint = nodeEndpoint(runtime, 'node-1', 'http://127.0.0.1');
    return messageCall(naming(verb), endpoint.cards(), endpoint.reachable());
  };

  it('hands out the same lists while no card changes, even as unrelated events are appended', async () => {
    await registry().upsert(card('a', [cap('demo.echo')]));
    await registry().upsert(card('r', [cap('far.away')]), { origin: 'remote' });
    const first = nodeEndpoint(runtime, 'node-1', 'http://127.0.0.1');
    const cards = first.cards();
    const reachable = first.reachable();
    await openEventLog(harness.log).append({ type: 'test.unrelated', data: { n: 1 } });
    await registry().upsert(card('a', [cap('demo.echo')])); // the same card: no event
    const second = nodeEndpoint(runtime, 'node-1', 'http://other.example');
    expect(second.cards()).toBe(cards);
    expect(second.reachable()).toBe(reachable);
    expect({ local: cards, remote: reachable }).toEqual(fresh());
    expect(callOf('demo.echo')).toEqual({ to: 'a', verb: 'demo.echo', input: {} });
    expect(callOf('far.away')).toEqual({ to: 'r', verb: 'far.away', input: {} });
  });

  it('follows a registration, an update and a removal at once: no stale skill', async () => {
    await registry().upsert(card('a', [cap('demo.echo')]));
    expect(callOf('demo.echo').to).toBe('a');
    expect(() => callOf('b.run')).toThrow(PlexusError);
    await registry().upsert(card('b', [cap('b.run')]));
    expect(callOf('b.run')).toEqual({ to: 'b', verb: 'b.run', input: {} });
    // a second agent offering the same verb: the router chooses (A2A-6), not the first resolution
    await registry().upsert(card('b', [cap('b.run'), cap('demo.echo')]));
    expect(callOf('demo.echo').to).toBe('capability:demo.echo');
    await registry().remove('b');
    expect(callOf('demo.echo').to).toBe('a');
    expect(() => callOf('b.run')).toThrow(/no skill "b.run"/);
    const endpoint = nodeEndpoint(runtime, 'node-1', 'http://127.0.0.1');
    expect({ local: endpoint.cards(), remote: endpoint.reachable() }).toEqual(fresh());
  });

  it("keeps one agent's list until its card changes", async () => {
    await registry().upsert(card('a', [cap('demo.echo')]));
    const cards = agentEndpoint(runtime, 'a', 'http://127.0.0.1')?.cards();
    expect(agentEndpoint(runtime, 'a', 'http://127.0.0.1')?.cards()).toBe(cards);
    await registry().upsert(card('a', [cap('demo.echo'), cap('demo.more')]));
    const after = agentEndpoint(runtime, 'a', 'http://127.0.0.1');
    expect(after?.cards()).not.toBe(cards);
    expect(after?.cards()).toEqual([registry().get('a')]);
    expect(messageCall(naming('demo.more'), after?.cards() ?? [], [])).toEqual({
      to: 'a',
      verb: 'demo.more',
      input: {},
    });
  });
});

describe("an A2A request's signal", () => {
  let harness: Harness;
  let app: FastifyInstance;
  let port = 0;
  const signals: AbortSignal[] = [];
  let held = gate();
  let reached = gate();

  beforeEach(async () => {
    signals.length = 0;
    held = gate();
    reached = gate();
    harness = await startRuntime();
    app = Fastify();
    const endpoint = nodeEndpoint(harness.runtime, 'node-1', 'http://127.0.0.1');
    const caller = { principal: { id: 'tester', kind: 'local' }, transport: {} };
    app.get('/whole', (_request, reply) => {
      const { abort } = a2aCallContext(reply, caller, '1.0', endpoint);
      signals.push(abort.signal);
      return reply.send('done');
    });
    app.get('/held', async (_request, reply) => {
      const { abort } = a2aCallContext(reply, caller, '1.0', endpoint);
      signals.push(abort.signal);
      reached.open();
      await held.promise;
      return reply.send('late');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  });

  afterEach(async () => {
    held.open();
    await app.close();
    await harness.close();
  });

  it('is left alone once the answer was sent whole', async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/whole`);
    expect(await answer.text()).toBe('done');
    const [signal] = signals;
    // the response's close event follows its finish: wait for it before looking
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(signal?.aborted).toBe(false);
  });

  it('aborts when the client goes away before the answer', async () => {
    const aborted = new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/held' });
      req.on('error', () => undefined);
      req.end();
      void reached.promise.then(() => {
        const [signal] = signals;
        signal?.addEventListener(
          'abort',
          () => {
            resolve();
          },
          { once: true },
        );
        req.destroy();
      });
    });
    await aborted;
    expect(signals[0]?.aborted).toBe(true);
  });
});
