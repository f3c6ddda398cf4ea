import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import { PlexusError } from '../../src/core/errors.js';
import { createNode, type Node } from '../../src/node/index.js';
import type { Principal } from '../../src/runtime/context.js';
import { bindTenant, jobNotFound, visibleToTenant } from '../../src/runtime/pipeline/tenancy.js';

const request = (tenantId?: string): Envelope => ({
  id: randomUUID(),
  kind: 'request',
  from: 'caller',
  to: 'capability:echo.echo',
  verb: 'echo.echo',
  data: { hello: 'world' },
  ...(tenantId === undefined ? {} : { tenantId }),
});

const acme: Principal = { id: 'alice', kind: 'api-key', tenantId: 'acme' };
const untenanted: Principal = { id: 'ops', kind: 'jwt' };

function refusal(fn: () => unknown): PlexusError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('bindTenant', () => {
  it("gives a request without a tenant the principal's tenant", () => {
    expect(bindTenant(request(), { face: 'esrp', principal: acme }).tenantId).toBe('acme');
    const same = request('acme');
    expect(bindTenant(same, { face: 'esrp', principal: acme })).toBe(same);
  });

  it('refuses a claim of another tenant, naming both', () => {
    const error = refusal(() => bindTenant(request('globex'), { face: 'esrp', principal: acme }));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.details).toEqual({ reason: 'tenant', tenant: 'globex', bound: 'acme' });
    expect(error.message).toContain('globex');
  });

  it('refuses any claim from a principal bound to no tenant', () => {
    expect(bindTenant(request(), { face: 'esrp', principal: untenanted }).tenantId).toBeUndefined();
    const error = refusal(() => bindTenant(request('acme'), { face: 'esrp', principal: untenanted }));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.details?.['bound']).toBeNull();
  });

  it('keeps the claim of unauthenticated and in-process calls, dev-mode anonymous callers and trusted peers', () => {
    const esrp = (principal?: Principal) => ({
      face: 'esrp' as const,
      ...(principal === undefined ? {} : { principal }),
    });
    expect(bindTenant(request('acme'), esrp()).tenantId).toBe('acme');
    expect(bindTenant(request('acme'), { face: 'internal', principal: untenanted }).tenantId).toBe('acme');
    expect(bindTenant(request('acme'), esrp({ id: 'anonymous', kind: 'anonymous' })).tenantId).toBe('acme');
    expect(bindTenant(request('acme'), esrp({ id: 'did:key:zPeer', kind: 'peer' })).tenantId).toBe('acme');
  });
});

describe('visibleToTenant', () => {
  it('shows a record only to its own tenant (no tenant matches no tenant)', () => {
    expect(visibleToTenant('acme', acme)).toBe(true);
    expect(visibleToTenant('globex', acme)).toBe(false);
    expect(visibleToTenant(undefined, acme)).toBe(false);
    expect(visibleToTenant('acme', untenanted)).toBe(false);
    expect(visibleToTenant(undefined, untenanted)).toBe(true);
    expect(visibleToTenant('acme', undefined)).toBe(true);
  });

  it('answers a hidden job with the NOT_FOUND of a missing one', () => {
    const error = jobNotFound('job-1');
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('no job with id "job-1"');
  });
});

describe('the runtime binds the tenant of every request', () => {
  let node: Node;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'plexus-tenancy-'));
    node = createNode({ dataDir: dir, port: 0, dev: true, primitives: false, demo: ['echo'] });
    await node.start();
  });
  afterAll(async () => {
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the principal tenant on the job and refuses a foreign claim', async () => {
    const { job } = await node.runtime.submit(request(), { face: 'esrp', principal: acme });
    expect(job.tenantId).toBe('acme');
    const refused = await node.runtime.invoke(request('globex'), { face: 'esrp', principal: acme });
    expect(refused.envelope.kind).toBe('error');
    expect((refused.envelope.data as { code: string }).code).toBe('FORBIDDEN');
  });
});
