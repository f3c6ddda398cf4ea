/**
 * A node with `budgets:` in plexus.yaml: charged verbs debit the tenant's budget, an
 * exhausted budget fails the job BUDGET_EXCEEDED before the handler, undeclared emits fail
 * the job, and `plexus replay --verify` rebuilds the ledger equal to the node's.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import {
  createNode,
  nodeInitFromConfig,
  parseNodeConfigText,
  replayDataDir,
  type Node,
} from '../../src/node/index.js';
import { defineAgent, type HandlerContext } from '../../src/runtime/index.js';

const RUN = 'lab.model.run';
let runs = 0;

const lab = defineAgent({
  card: {
    id: 'lab',
    name: 'Lab',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: RUN, input: true, output: true }],
  },
  verbs: [
    {
      name: RUN,
      version: 1,
      status: 'stable',
      input: true,
      output: true,
      effects: { charges: ['tokens'], emits: ['lab.ran'], reads: ['budget'] },
      capabilities: [],
      category: 'mutation',
      deterministic: false,
    },
  ],
  create: () => ({
    [RUN]: async (input, ctx: HandlerContext) => {
      runs++;
      const emit = (input as { emit?: string }).emit ?? 'lab.ran';
      ctx.emit(emit, { run: runs });
      return { budget: await ctx.read('budget') };
    },
  }),
});

const YAML = `
budgets:
  prices: { tokens: 0.4 }
  tenants: { acme: 1 }
  default: 0.5
`;

let node: Node | undefined;
let dir: string | undefined;

afterEach(async () => {
  await node?.stop();
  node = undefined;
  runs = 0;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function call(tenantId: string, data: Record<string, unknown> = {}): Envelope {
  return {
    id: randomUUID(),
    kind: 'request',
    from: 'did:key:caller',
    to: 'lab',
    verb: RUN,
    data: { ...data, n: randomUUID() },
    tenantId,
  };
}

describe('a node with budgets', () => {
  it('reads budgets from plexus.yaml in micro-units and refuses bad amounts naming the key', () => {
    expect(parseNodeConfigText(YAML).budgets).toEqual({
      prices: { tokens: 400_000 },
      tenants: { acme: 1_000_000 },
      defaultTenant: 500_000,
    });
    expect(() => parseNodeConfigText('budgets: { prices: { tokens: 0.0000001 } }')).toThrow(
      /"budgets\.prices\.tokens" has more than 6 decimal places/,
    );
    expect(() => parseNodeConfigText('budgets: { tenants: { a: 1 } }')).toThrow(
      /"budgets\.prices" is required/,
    );
    expect(() => parseNodeConfigText('budgets: { limits: 1, prices: {} }')).toThrow(
      /"budgets\.limits" is not a known setting/,
    );
    expect(() => parseNodeConfigText('budgets: { prices: { tokens: -1 } }')).toThrow(/must not be negative/);
  });

  it('charges, refuses an exhausted budget before the handler, and replays the ledger', async () => {
    dir = mkdtempSync(join(tmpdir(), 'plexus-effects-'));
    node = createNode({
      ...nodeInitFromConfig(parseNodeConfigText(YAML)),
      dataDir: dir,
      port: 0,
      dev: true,
      primitives: false,
      agents: [lab],
    });
    await node.start();
    const first = await node.runtime.invoke(call('acme'), { face: 'esrp' });
    expect(first.envelope.data).toEqual({
      budget: { budgets: [{ budget: 'tenant:acme', spent: 400_000, limit: 1_000_000, remaining: 600_000 }] },
    });
    expect((await node.runtime.invoke(call('acme'), { face: 'esrp' })).job?.state).toBe('COMPLETED');
    const third = await node.runtime.invoke(call('acme'), { face: 'esrp' });
    expect(third.envelope.kind).toBe('error');
    expect(third.envelope.data).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      details: { budget: 'tenant:acme', requested: 400_000, remaining: 200_000, limit: 1_000_000 },
    });
    expect(runs).toBe(2);
    // another tenant has the default budget
    expect((await node.runtime.invoke(call('beta'), { face: 'esrp' })).job?.state).toBe('COMPLETED');
    // an undeclared emit fails the job and its charge is refunded
    const forbidden = await node.runtime.invoke(call('gamma', { emit: 'lab.secret' }), { face: 'esrp' });
    expect(forbidden.envelope.data).toMatchObject({
      code: 'FORBIDDEN',
      details: { effect: 'emits', resource: 'lab.secret' },
    });
    expect(node.runtime.ledger.figures('tenant:gamma').spent).toBe(0);
    expect(node.runtime.ledger.figures('tenant:beta').spent).toBe(400_000);
    const emitted = await node.log.read({ type: 'lab.ran' });
    expect(emitted).toHaveLength(3);
    await node.stop();
    node = undefined;
    const report = await replayDataDir(dir, { verify: true });
    expect(report.ok, report.problem).toBe(true);
    const ledger = report.projections.find((p) => p.name === 'runtime.ledger');
    expect(ledger?.entries).toBe(3); // acme, beta, gamma (debited and refunded)
    expect(ledger?.checks.every((c) => c.check.ok)).toBe(true);
  });
});
