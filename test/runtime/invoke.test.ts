import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import { PlexusError } from '../../src/core/errors.js';
import { validateJob } from '../../src/core/records/job.js';
import { attachSignature, envelopeVerifier, generateKeyPair, rpcDomain } from '../../src/security/index.js';
import { JOB_EXTENSION, PIPELINE_STEPS, stepSpanName } from '../../src/runtime/index.js';
import { agent, cap, type Harness, request, startRuntime } from './helpers.js';

const INPUT = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: { text: { type: 'string' } },
} as const;

const echo = agent(
  'echo',
  {
    'demo.echo': (input) => input,
    'demo.upper': (input) => ({ text: (input as { text: string }).text.toUpperCase() }),
  },
  {
    capabilities: [
      cap('demo.echo', INPUT, INPUT),
      cap('demo.upper', INPUT, { type: 'object', required: ['text'] }),
    ],
  },
);

function codeOf(envelope: Envelope): string | undefined {
  return envelope.kind === 'error' ? (envelope.data as { code: string }).code : undefined;
}

describe('runtime.invoke', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('runs a request through every pipeline step and answers with a response envelope', async () => {
    h = await startRuntime({ agents: [echo] });
    const req = request('demo.echo', { text: 'hi' });
    const { envelope, job, duplicate } = await h.runtime.invoke(req, { face: 'test' });
    expect(envelope).toMatchObject({
      id: req.id,
      kind: 'response',
      from: 'echo',
      to: req.from,
      data: { text: 'hi' },
    });
    expect(duplicate).toBe(false);
    expect(job?.state).toBe('COMPLETED');
    expect(validateJob(job)).toEqual([]);
    expect(envelope.extensions?.[JOB_EXTENSION]).toEqual({ id: job?.id, state: 'COMPLETED' });
    const names = h.observer.spanNames();
    for (const step of PIPELINE_STEPS) expect(names).toContain(stepSpanName(step));
    expect(h.observer.spans.every((s) => s.ended)).toBe(true);
  });

  it('records the job and the audit in the log, in order', async () => {
    h = await startRuntime({ agents: [echo] });
    const { job } = await h.runtime.invoke(request('demo.echo', { text: 'hi' }, 'echo'), { face: 'test' });
    const types = (await h.log.read({ afterSeq: 0 }))
      .map((e) => e.type)
      .filter((t) => !t.startsWith('agent.'));
    expect(types).toEqual(['job.submitted', 'audit.invoked', 'job.started', 'job.completed']);
    expect((await h.runtime.jobs.get(job!.id)).outputs).toEqual({ text: 'hi' });
  });

  it('answers a malformed envelope with INVALID_REQUEST and no job', async () => {
    h = await startRuntime({ agents: [echo] });
    const bad = {
      id: 'x',
      kind: 'request',
      from: 'a',
      to: 'echo',
      verb: 'demo.echo',
      data: {},
      wrong: 1,
    } as unknown as Envelope;
    const { envelope, job } = await h.runtime.invoke(bad, { face: 'test' });
    expect(codeOf(envelope)).toBe('INVALID_REQUEST');
    expect(envelope.id).toBe('x');
    expect(job).toBeUndefined();
  });

  it('answers bad input with INVALID_PARAMS and the pointer of the problem', async () => {
    h = await startRuntime({ agents: [echo] });
    const { envelope } = await h.runtime.invoke(request('demo.echo', { text: 5 }), { face: 'test' });
    expect(codeOf(envelope)).toBe('INVALID_PARAMS');
    expect(
      (envelope.data as { details: { problems: { pointer: string }[] } }).details.problems[0]?.pointer,
    ).toBe('/text');
  });

  it('answers an unknown verb with UNKNOWN_VERB and an unknown agent with NOT_FOUND', async () => {
    h = await startRuntime({ agents: [echo] });
    expect(codeOf((await h.runtime.invoke(request('demo.nothing', {}), { face: 'test' })).envelope)).toBe(
      'UNKNOWN_VERB',
    );
    expect(
      codeOf((await h.runtime.invoke(request('demo.nothing', {}, 'echo'), { face: 'test' })).envelope),
    ).toBe('UNKNOWN_VERB');
    expect(
      codeOf(
        (await h.runtime.invoke(request('demo.echo', { text: '' }, 'ghost'), { face: 'test' })).envelope,
      ),
    ).toBe('NOT_FOUND');
  });

  it('refuses unauthenticated callers when authentication is required, and accepts a bearer principal', async () => {
    h = await startRuntime({ agents: [echo], requireAuth: true });
    const anonymous = await h.runtime.invoke(request('demo.echo', { text: 'a' }), { face: 'test' });
    expect(codeOf(anonymous.envelope)).toBe('UNAUTHORIZED');
    const known = await h.runtime.invoke(request('demo.echo', { text: 'b' }), {
      face: 'test',
      principal: { id: 'user-1', kind: 'bearer' },
    });
    expect(known.envelope.kind).toBe('response');
  });

  it('verifies signed requests: a valid one runs, a forged or replayed one is refused', async () => {
    const key = generateKeyPair();
    h = await startRuntime({ agents: [echo], verifier: envelopeVerifier(), requireAuth: true });
    const signed = attachSignature(request('demo.echo', { text: 'signed' }), {
      key,
      domain: rpcDomain('demo.echo'),
    });
    const forged = await h.runtime.invoke({ ...signed, id: 'f', data: { text: 'forged' } }, { face: 'test' });
    expect(codeOf(forged.envelope)).toBe('SIGNATURE_INVALID');
    const ok = await h.runtime.invoke(signed, { face: 'test' });
    expect(ok.envelope.kind).toBe('response');
    const replayed = await h.runtime.invoke({ ...signed, id: 'r' }, { face: 'test' });
    expect(codeOf(replayed.envelope)).toBe('SIGNATURE_REPLAYED');
  });

  it('refuses unsigned requests when signatures are required', async () => {
    h = await startRuntime({ agents: [echo], verifier: envelopeVerifier(), requireSignatures: true });
    expect(
      codeOf((await h.runtime.invoke(request('demo.echo', { text: 'x' }), { face: 'test' })).envelope),
    ).toBe('UNAUTHORIZED');
  });

  it('runs authorizer hooks: a denial is the answer', async () => {
    const onlyAlice = {
      name: 'only-alice',
      authorize(req: { principal: { id: string } | undefined }) {
        if (req.principal?.id !== 'alice') throw new PlexusError('FORBIDDEN', 'only alice may call');
      },
    };
    h = await startRuntime({ agents: [echo], authorizers: [onlyAlice] });
    const bob = await h.runtime.invoke(request('demo.echo', { text: 'x' }), {
      face: 't',
      principal: { id: 'bob', kind: 'bearer' },
    });
    expect(codeOf(bob.envelope)).toBe('FORBIDDEN');
    const alice = await h.runtime.invoke(request('demo.echo', { text: 'x' }), {
      face: 't',
      principal: { id: 'alice', kind: 'bearer' },
    });
    expect(alice.envelope.kind).toBe('response');
  });

  it('fails a job whose output does not match the declared output schema', async () => {
    const liar = agent(
      'liar',
      { 'demo.upper': () => ({ nope: 1 }) },
      { capabilities: [cap('demo.upper', true, { type: 'object', required: ['text'] })] },
    );
    h = await startRuntime({ agents: [liar] });
    const { envelope, job } = await h.runtime.invoke(request('demo.upper', { text: 'x' }), { face: 'test' });
    expect(codeOf(envelope)).toBe('INTERNAL');
    expect(job?.state).toBe('FAILED');
  });

  it('refuses requests once stopped and before started', async () => {
    h = await startRuntime({ agents: [echo] });
    await h.runtime.stop();
    const { envelope } = await h.runtime.invoke(request('demo.echo', { text: 'x' }), { face: 'test' });
    expect(codeOf(envelope)).toBe('UNAVAILABLE');
    await expect(
      h.runtime.submit(request('demo.echo', { text: 'x' }), { face: 'test' }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('refuses a request whose deadline already passed with TIMEOUT', async () => {
    h = await startRuntime({ agents: [echo] });
    const late = request('demo.echo', { text: 'x' }, 'echo', { deadline: '2000-01-01T00:00:00Z' });
    expect(codeOf((await h.runtime.invoke(late, { face: 'test' })).envelope)).toBe('TIMEOUT');
  });
});
