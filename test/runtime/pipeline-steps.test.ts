import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { attachSignature, envelopeVerifier, generateKeyPair, rpcDomain } from '../../src/security/index.js';
import {
  PIPELINE_STEPS,
  auditPreEffect,
  authorizeStep,
  errorEnvelope,
  memoryObserver,
  principalOf,
  responseEnvelope,
  runPreEffects,
  runStep,
  validateEnvelopeStep,
  validateInputStep,
  verifySignatureStep,
  type AuthorizationRequest,
  type Resolution,
} from '../../src/runtime/index.js';
import { cap, card, request } from './helpers.js';
import { ESRP_ERRORS } from '../../src/wire/esrp/error-table.js';

function thrown(fn: () => unknown): PlexusError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a PlexusError');
}

async function rejected(promise: Promise<unknown>): Promise<PlexusError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const NEVER = new AbortController().signal;

const SCHEMA = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: { text: { type: 'string', minLength: 1 }, count: { type: 'integer', minimum: 1 } },
} as const;

function resolution(kind: Resolution['kind'], ...ids: string[]): Resolution {
  return {
    kind,
    verb: 'demo.echo',
    candidates: ids.map((id, i) => {
      const capability = cap('demo.echo', i === 0 ? SCHEMA : { type: 'object' });
      return { card: card(id, [capability]), capability };
    }),
  };
}

describe('validateEnvelopeStep', () => {
  it('returns a valid request envelope unchanged', () => {
    const env = request('demo.echo', { text: 'hi' });
    expect(validateEnvelopeStep(env)).toBe(env);
  });

  it('rejects a malformed envelope with INVALID_REQUEST and pointers', () => {
    const error = thrown(() =>
      validateEnvelopeStep({ id: '', kind: 'request', from: 'a', verb: 'x.y', data: 1, bogus: 1 }),
    );
    expect(error.code).toBe('INVALID_REQUEST');
    const pointers = (error.details?.['problems'] as { pointer: string }[]).map((p) => p.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/id', '/bogus', '']));
  });

  it('rejects an envelope that is not a request, or names no verb', () => {
    expect(
      thrown(() => validateEnvelopeStep({ ...request('demo.echo', 1), kind: 'response' })).details,
    ).toEqual({ pointer: '/kind' });
    expect(thrown(() => validateEnvelopeStep(request('', 1))).details).toEqual({ pointer: '/verb' });
    expect(thrown(() => validateEnvelopeStep('not an object')).code).toBe('INVALID_REQUEST');
  });
});

describe('validateInputStep', () => {
  it('accepts input matching the schema', () => {
    const r = resolution('agent', 'a');
    expect(validateInputStep(r, { text: 'hi' })).toBe(r);
  });

  it('rejects bad input with INVALID_PARAMS and the JSON pointer of each problem', () => {
    const error = thrown(() =>
      validateInputStep(resolution('agent', 'a'), { text: '', count: 0, extra: true }),
    );
    expect(error.code).toBe('INVALID_PARAMS');
    expect(ESRP_ERRORS[error.code]).toBe('INVALID_INPUT_SCHEMA');
    const pointers = (error.details?.['problems'] as { pointer: string }[]).map((p) => p.pointer).sort();
    expect(pointers).toEqual(['/count', '/extra', '/text']);
  });

  it('drops candidates whose schema rejects the input for a capability selector', () => {
    const r = validateInputStep(resolution('capability', 'a', 'b'), { other: 1 });
    expect(r.candidates.map((c) => c.card.id)).toEqual(['b']);
  });
});

describe('verifySignatureStep', () => {
  const key = generateKeyPair();
  const signed = (verb = 'demo.echo', data: unknown = { text: 'hi' }) =>
    attachSignature(request(verb, data as never), { key, domain: rpcDomain(verb) });

  it('lets unsigned requests through unless signatures are required', () => {
    expect(verifySignatureStep(request('demo.echo', 1), {})).toBeUndefined();
    expect(thrown(() => verifySignatureStep(request('demo.echo', 1), { requireSignatures: true })).code).toBe(
      'UNAUTHORIZED',
    );
  });

  it('returns the signer of a valid signature', () => {
    const verifier = envelopeVerifier();
    const signer = verifySignatureStep(signed(), { verifier });
    expect(signer?.did).toMatch(/^did:key:z6Mk/);
  });

  it('rejects a forged payload, a signature for another verb, and a replay', () => {
    const verifier = envelopeVerifier();
    const env = signed();
    expect(thrown(() => verifySignatureStep({ ...env, data: { text: 'forged' } }, { verifier })).code).toBe(
      'SIGNATURE_INVALID',
    );
    expect(['SIGNATURE_INVALID', 'SIGNATURE_DOMAIN_MISMATCH']).toContain(
      thrown(() => verifySignatureStep({ ...env, verb: 'demo.other' }, { verifier })).code,
    );
    verifySignatureStep(env, { verifier });
    expect(thrown(() => verifySignatureStep(env, { verifier })).code).toBe('SIGNATURE_REPLAYED');
  });

  it('rejects a signed request when no verifier is configured', () => {
    expect(thrown(() => verifySignatureStep(signed(), {})).code).toBe('UNAUTHORIZED');
  });
});

describe('authorizeStep', () => {
  const base = (principal: AuthorizationRequest['principal']): AuthorizationRequest => ({
    envelope: request('demo.echo', 1),
    context: { face: 'test' },
    principal,
    resolution: resolution('agent', 'a'),
    verbSpec: () => undefined,
  });

  it('refuses an unauthenticated caller when authentication is required', async () => {
    const error = await rejected(
      authorizeStep(base(undefined), { requireAuth: true, authorizers: [] }, NEVER),
    );
    expect(error.code).toBe('UNAUTHORIZED');
  });

  it('returns the principal and runs the authorizers in order; the first denial wins', async () => {
    const seen: string[] = [];
    const allow = { name: 'allow', authorize: () => void seen.push('allow') };
    const deny = {
      name: 'deny',
      authorize: () => {
        seen.push('deny');
        throw new PlexusError('FORBIDDEN', 'no');
      },
    };
    const principal = { id: 'u1', kind: 'bearer' };
    expect(await authorizeStep(base(principal), { requireAuth: true, authorizers: [allow] }, NEVER)).toBe(
      principal,
    );
    const error = await rejected(
      authorizeStep(base(principal), { requireAuth: false, authorizers: [deny, allow] }, NEVER),
    );
    expect(error.code).toBe('FORBIDDEN');
    expect(seen).toEqual(['allow', 'deny']);
  });

  it('turns a crashing authorizer into INTERNAL naming it', async () => {
    const broken = { name: 'broken', authorize: () => Promise.reject(new Error('boom')) };
    const error = await rejected(
      authorizeStep(base(undefined), { requireAuth: false, authorizers: [broken] }, NEVER),
    );
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toContain('broken');
  });

  it('takes the face principal first, else the verified signer', () => {
    const key = generateKeyPair();
    const signer = verifySignatureStep(
      attachSignature(request('demo.echo', 1), { key, domain: rpcDomain('demo.echo') }),
      {
        verifier: envelopeVerifier(),
      },
    );
    expect(principalOf({ face: 'x' }, signer)).toEqual({ id: signer?.did, kind: 'signature' });
    expect(principalOf({ face: 'x', principal: { id: 'p', kind: 'bearer' } }, signer)?.id).toBe('p');
  });
});

describe('pre-effects', () => {
  it('the audit pre-effect records who called what', async () => {
    const events = await runPreEffects(
      [auditPreEffect],
      {
        jobId: 'j1',
        envelope: request('demo.echo', 1, 'a', { tenantId: 't1' }),
        context: {
          face: 'esrp',
          principal: { id: 'u1', kind: 'bearer' },
          transport: { remoteAddress: '127.0.0.1' },
        },
        principal: { id: 'u1', kind: 'bearer' },
        resolution: resolution('agent', 'a'),
        mode: 'sync',
      },
      NEVER,
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'audit.invoked',
      causation: 'j1',
      tenant: 't1',
      data: {
        job: 'j1',
        verb: 'demo.echo',
        principal: 'u1',
        face: 'esrp',
        candidates: ['a'],
        transport: { remoteAddress: '127.0.0.1' },
      },
    });
  });

  it('a refusing pre-effect refuses the call', async () => {
    const budget = {
      name: 'budget',
      before: () => {
        throw new PlexusError('BUDGET_EXCEEDED', 'over budget');
      },
    };
    const call = {
      jobId: 'j',
      envelope: request('demo.echo', 1),
      context: { face: 'x' as const },
      principal: undefined,
      resolution: resolution('agent', 'a'),
      mode: 'sync' as const,
    };
    expect((await rejected(runPreEffects([budget], call, NEVER))).code).toBe('BUDGET_EXCEEDED');
  });
});

describe('encode', () => {
  it('answers with the request id, back to the sender, carrying the job', () => {
    const req = request('demo.echo', 1, 'a', {
      tenantId: 't',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    const meta = { from: 'a', job: { id: 'j', state: 'COMPLETED' }, timestamp: '2025-01-01T00:00:00.000Z' };
    const ok = responseEnvelope(req, { x: 1 }, meta);
    expect(ok).toMatchObject({
      id: req.id,
      kind: 'response',
      from: 'a',
      to: req.from,
      correlationId: req.id,
      tenantId: 't',
      data: { x: 1 },
    });
    expect(ok.extensions).toEqual({ _x_job: { id: 'j', state: 'COMPLETED' } });
    const bad = errorEnvelope(req, new PlexusError('TIMEOUT', 'late').toData(), meta);
    expect(bad).toMatchObject({ kind: 'error', data: { code: 'TIMEOUT', retryable: true } });
    expect(validateEnvelopeStep({ ...bad, kind: 'request' })).toBeTruthy();
  });
});

describe('runStep', () => {
  it('wraps each step in a span and marks failures with their code', async () => {
    const observer = memoryObserver();
    expect(runStep(observer, 'resolve', {}, () => 1)).toBe(1);
    expect(() =>
      runStep(observer, 'validate_input', {}, () => {
        throw new PlexusError('INVALID_PARAMS', 'bad');
      }),
    ).toThrow(PlexusError);
    await expect(
      runStep(observer, 'authorize', {}, () => Promise.reject(new Error('x'))),
    ).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(observer.spans.map((s) => [s.name, s.errorCode])).toEqual([
      ['runtime.resolve', undefined],
      ['runtime.validate_input', 'INVALID_PARAMS'],
      ['runtime.authorize', 'INTERNAL'],
    ]);
    expect(PIPELINE_STEPS).toContain('execute');
  });
});
