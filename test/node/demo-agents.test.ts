import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import type { JsonValue } from '../../src/core/json.js';
import { DEMO_VERBS, demoAgents } from '../../src/node/index.js';
import { plainInput } from '../../src/node/demo/esrp-input.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { memoryEventLog, type EventLog } from '../../src/store/index.js';
import { until } from '../support/until.js';

let log: EventLog | undefined;
let runtime: Runtime | undefined;

async function started(): Promise<Runtime> {
  log = memoryEventLog();
  await log.start();
  runtime = createRuntime({ log, agents: demoAgents() });
  await runtime.start();
  return runtime;
}

afterEach(async () => {
  await runtime?.stop({ drainMs: 0 });
  await log?.stop();
  runtime = undefined;
  log = undefined;
});

function request(verb: string, data: JsonValue): Envelope {
  return { id: randomUUID(), kind: 'request', from: 'tester', to: `capability:${verb}`, verb, data };
}

function esrpData(
  inputs: { name: string; data: string; content_type?: string }[],
  params: JsonValue = null,
): JsonValue {
  return {
    inputs: inputs.map((i) => ({ content_type: 'text/plain', encoding: 'utf-8', metadata: null, ...i })),
    params,
  };
}

async function call(verb: string, data: JsonValue): Promise<Envelope> {
  const rt = runtime ?? (await started());
  return (await rt.invoke(request(verb, data), { face: 'internal' })).envelope;
}

describe('the demo agents', () => {
  it('offer the four demo verbs, each with input and output schemas, safe to run again', async () => {
    const rt = await started();
    // the conformance agent's verbs are MCP test fixtures (test/node/conformance-agent.test.ts),
    // the tck agent's an A2A one (test/interop/a2a-tck/requirements.test.ts)
    const cards = rt.agents.registry.list().filter((card) => !['conformance', 'tck'].includes(card.id));
    const verbs = cards.flatMap((card) => card.capabilities.map((c) => c.verb));
    expect(verbs.sort()).toEqual(DEMO_VERBS.map((v) => v.verb).sort());
    for (const card of cards) {
      const [capability] = card.capabilities;
      expect(card.id).toBe(capability?.verb.split('.')[0]);
      expect(capability?.input).toBeTypeOf('object');
      expect(capability?.output).toBeTypeOf('object');
      expect(rt.agents.registry.verbSpec(card.id, capability?.verb ?? '')?.deterministic).toBe(true);
    }
  });

  it('answer their own documented examples', async () => {
    for (const v of DEMO_VERBS.filter((d) => d.verb !== 'demo.slow')) {
      const answer = await call(v.verb, v.example);
      expect(answer.kind, v.verb).toBe('response');
    }
  });

  it('echo.echo returns its input unchanged', async () => {
    const value = { a: [1, 2.5, 'x', null, { b: true }] };
    expect((await call('echo.echo', value)).data).toEqual(value);
    expect((await call('echo.echo', 'text')).data).toBe('text');
  });

  it('math.evaluate answers and names the position of a syntax error', async () => {
    expect((await call('math.evaluate', { expression: '2 * (3 + 4) ^ 2' })).data).toEqual({
      expression: '2 * (3 + 4) ^ 2',
      value: 98,
    });
    const bad = await call('math.evaluate', { expression: '1 + * 2' });
    expect(bad.kind).toBe('error');
    expect(bad.data).toMatchObject({ code: 'INVALID_PARAMS', message: expect.stringMatching(/position 5/) });
  });

  it('refuses input of the wrong type before the handler runs', async () => {
    const bad = await call('math.evaluate', { expression: 42 });
    expect(bad.data).toMatchObject({ code: 'INVALID_PARAMS' });
    const extra = await call('text.summarize', { text: 'A.', sentences: 0 });
    expect(extra.data).toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('text.summarize picks sentences deterministically', async () => {
    const input = { text: 'Cats purr. Cats sleep a lot and cats eat. Dogs bark.', sentences: 1 };
    const first = await call('text.summarize', input);
    expect(first.data).toEqual({
      summary: 'Cats purr.',
      sentences: ['Cats purr.'],
      indices: [0],
      total: 3,
    });
    expect((await call('text.summarize', input)).data).toEqual(first.data);
  });

  it('read ESRP request data: named inputs, the JSON input "input", and params', async () => {
    const byName = await call('math.evaluate', esrpData([{ name: 'expression', data: '6*7' }]));
    expect(byName.data).toEqual({ expression: '6*7', value: 42 });
    const whole = await call(
      'math.evaluate',
      esrpData([{ name: 'input', content_type: 'application/json', data: '{"expression":"1+1"}' }]),
    );
    expect(whole.data).toEqual({ expression: '1+1', value: 2 });
    const summary = await call(
      'text.summarize',
      esrpData([{ name: 'text', data: 'One. Two. Three.' }], { sentences: 2 }),
    );
    expect(summary.data).toMatchObject({ indices: [0, 1] });
    const wrong = await call('math.evaluate', esrpData([{ name: 'formula', data: '1' }]));
    expect(wrong.data).toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('demo.slow reports progress at each step and finishes', async () => {
    const rt = await started();
    const { job } = await rt.submit(request('demo.slow', { seconds: 0, steps: 3 }), { face: 'internal' });
    const done = await rt.jobs.wait(job.id);
    expect(done.state).toBe('COMPLETED');
    expect(done.outputs).toEqual({ seconds: 0, steps: 3, completed: true });
    const progress = (await rt.jobs.events(job.id))
      .filter((e) => e.name === 'job_progress')
      .map((e) => e.data);
    expect(progress).toEqual(
      [1, 2, 3].map((step) => ({
        id: job.id,
        progress: { step, of: 3, percent: Math.floor((step * 100) / 3) },
      })),
    );
  });

  it('demo.slow stops when cancelled', async () => {
    const rt = await started();
    const { job } = await rt.submit(request('demo.slow', { seconds: 60 }), { face: 'internal' });
    await until(async () => (await rt.jobs.get(job.id)).state === 'WORKING', {
      what: 'the demo.slow job to work',
    });
    const cancelled = await rt.jobs.cancel(job.id);
    expect(cancelled.state).toBe('CANCELED');
  });

  it('demo.slow refuses more than 60 seconds', async () => {
    expect((await call('demo.slow', { seconds: 61 })).data).toMatchObject({ code: 'INVALID_PARAMS' });
  });
});

describe('plainInput', () => {
  it('leaves a plain input alone', () => {
    expect(plainInput({ expression: '1' })).toEqual({ expression: '1' });
    expect(plainInput([1, 2])).toEqual([1, 2]);
  });

  it('returns a non-object whole input as is, and decodes base64 inputs', () => {
    expect(
      plainInput(esrpData([{ name: 'input', content_type: 'application/json', data: '[1,2]' }])),
    ).toEqual([1, 2]);
    expect(
      plainInput({
        inputs: [
          {
            name: 'text',
            content_type: 'text/plain',
            data: Buffer.from('héllo').toString('base64'),
            encoding: 'base64',
            metadata: null,
          },
        ],
        params: null,
      }),
    ).toEqual({ text: 'héllo' });
  });

  it('refuses a JSON input that is not JSON', () => {
    expect(() =>
      plainInput(esrpData([{ name: 'input', content_type: 'application/json', data: '{' }])),
    ).toThrow(/says application\/json but is not JSON/);
  });
});
