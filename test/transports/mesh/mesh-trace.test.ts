/**
 * W3C trace context over the mesh (issue 16 item 1, OBS-8, OBS-17): two in-process mesh nodes,
 * each with an in-memory span exporter. A capability change gossiped by the far node is applied
 * by the near one in a CONSUMER span under the far node's PRODUCER span; a call entering the
 * near node and run on the far one over `/plexus/rpc/1.0.0` is one trace, the far invocation a
 * child of the near node's `routing.forward` hop, beside the far node's rpc SERVER span. (libp2p in-process: no process is spawned.)
 */
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { INVOCATION_SPAN } from '../../../src/observability/span-names.js';
import { agent, request } from '../../runtime/helpers.js';
import { eventually } from '../../support/until.js';
import { meshAddress, meshNode, meshStatus, runCleanups } from './rpc-helpers.js';

afterAll(runCleanups);

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const SPAN_KIND_SERVER = 1;
const SPAN_KIND_PRODUCER = 3;
const SPAN_KIND_CONSUMER = 4;

const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;
const traceOf = (s: ReadableSpan): string => s.spanContext().traceId;
const idOf = (s: ReadableSpan): string => s.spanContext().spanId;

function found<T>(what: string, look: () => T | undefined): Promise<T> {
  return eventually(what, () => Promise.resolve(look()), { limitMs: 20_000, everyMs: 20 });
}

describe('traces over the mesh', () => {
  it('gossip joins the publisher’s trace, and an rpc call is one trace across both nodes', async () => {
    const farSpans = new InMemorySpanExporter();
    const nearSpans = new InMemorySpanExporter();
    const far = await meshNode(
      {},
      { agents: [agent('worker', { 'demo.work': (input) => ({ input }) })], spanExporter: farSpans },
    );
    const near = await meshNode({ bootstrap: [await meshAddress(far)] }, { spanExporter: nearSpans });
    const topic = `hyperspace/capabilities/${(await meshStatus(far)).peerId}`;

    const consumer = await found('the near node applying the far node’s cards', () =>
      nearSpans
        .getFinishedSpans()
        .find((s) => s.name === `process ${topic}` && s.parentSpanContext !== undefined),
    );
    const producer = await found('the far node’s publication', () =>
      farSpans.getFinishedSpans().find((s) => idOf(s) === parentOf(consumer)),
    );
    expect(producer.name).toBe(`publish ${topic}`);
    expect(producer.kind).toBe(SPAN_KIND_PRODUCER);
    expect(consumer.kind).toBe(SPAN_KIND_CONSUMER);
    expect(traceOf(consumer)).toBe(traceOf(producer));
    expect(consumer.attributes).toMatchObject({
      'messaging.system': 'gossipsub',
      'messaging.destination.name': topic,
    });
    await found('the worker card learned', () =>
      near.runtime.agents.registry.find('worker')?.card.origin === 'remote' ? true : undefined,
    );

    const { envelope } = await near.runtime.invoke(
      request('demo.work', 7, 'worker', { traceparent: `00-${TRACE}-${CALLER_SPAN}-01` }),
      { face: 'internal' },
    );
    expect(envelope).toMatchObject({ kind: 'response', data: { input: 7 } });
    const forward = await found('the near hop', () =>
      nearSpans.getFinishedSpans().find((s) => s.name === 'routing.forward' && traceOf(s) === TRACE),
    );
    expect(forward.attributes['plexus.target']).toMatch(/^p2p:\/\//);
    const farInvocation = await found('the far invocation', () =>
      farSpans
        .getFinishedSpans()
        .find((s) => s.name === INVOCATION_SPAN && s.attributes['plexus.face'] === 'peer'),
    );
    expect(traceOf(farInvocation)).toBe(TRACE);
    expect(parentOf(farInvocation)).toBe(idOf(forward));
    // the far node's SERVER span of the call (OTel RPC conventions), a sibling under the hop
    const server = await found('the far rpc server span', () =>
      farSpans.getFinishedSpans().find((s) => s.name === 'plexus.rpc/demo.work'),
    );
    expect(server.kind).toBe(SPAN_KIND_SERVER);
    expect(parentOf(server)).toBe(idOf(forward));
    expect(server.attributes).toMatchObject({ 'rpc.system': 'plexus', 'rpc.method': 'demo.work' });
  }, 60_000);
});
