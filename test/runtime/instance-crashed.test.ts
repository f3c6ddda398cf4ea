/**
 * `AgentInstanceContext.crashed` (docs/decisions/mcp.md MCP-33): an instance that dies outside
 * any handler (the MCP bridge's stdio server exiting) reports it, and its supervisor handles it
 * as a crash — under the one-for-one supervisor and under a supervision tree; a report from a
 * replaced instance is ignored; past the intensity the agent is suspended.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/runtime/index.js';
import { until } from '../support/until.js';
import { card, cap, request, startRuntime, type Harness } from './helpers.js';

/** An agent keeping each instance's `crashed` report, by incarnation. */
function dying(maxRestarts = 5) {
  const reports: ((reason: unknown) => void)[] = [];
  const definition = defineAgent({
    card: card('dying', [cap('demo.which')]),
    restart: { maxRestarts, periodMs: 60_000 },
    create: ({ incarnation, crashed }) => {
      if (crashed !== undefined) reports[incarnation] = crashed;
      return { 'demo.which': () => ({ incarnation }) };
    },
  });
  return { definition, reports };
}

let n = 0;
async function which(h: Harness): Promise<unknown> {
  return (await h.runtime.invoke(request('demo.which', ++n), { face: 't' })).envelope.data;
}

async function restarts(h: Harness): Promise<number> {
  return (await h.log.read({ type: ['agent.restarted'], afterSeq: 0, limit: 100 })).length;
}

describe('an instance reporting its own crash', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('is restarted by the one-for-one supervisor; a stale report is ignored', async () => {
    const a = dying();
    h = await startRuntime({ agents: [a.definition] });
    expect(await which(h)).toEqual({ incarnation: 0 });
    a.reports[0]?.(new Error('the process exited'));
    await until(async () => (await restarts(h)) === 1, { what: 'one restart' });
    expect(await which(h)).toEqual({ incarnation: 1 });
    a.reports[0]?.(new Error('late news of the old one'));
    expect(await which(h)).toEqual({ incarnation: 1 });
    expect(await restarts(h)).toBe(1);
  });

  it('suspends the agent past its restart intensity', async () => {
    const a = dying(1);
    h = await startRuntime({ agents: [a.definition] });
    a.reports[0]?.(new Error('exit 1'));
    await until(() => a.reports[1] !== undefined, { what: 'the second instance' });
    a.reports[1]?.(new Error('exit 2'));
    await until(
      async () => (await h.log.read({ type: ['agent.suspended'], afterSeq: 0, limit: 5 })).length === 1,
      {
        what: 'the agent suspended',
      },
    );
    expect(await which(h)).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('is handled by a supervision tree that names the agent', async () => {
    const a = dying();
    h = await startRuntime({
      agents: [a.definition],
      supervision: {
        id: 'root',
        strategy: 'one-for-one',
        maxRestarts: 5,
        periodMs: 60_000,
        children: [{ id: 'dying' }],
      },
    });
    expect(await which(h)).toEqual({ incarnation: 0 });
    a.reports[0]?.(new Error('the process exited'));
    await until(async () => (await which(h)) !== undefined && a.reports[1] !== undefined, {
      what: 'the tree re-created the instance',
    });
    expect(await which(h)).toEqual({ incarnation: 1 });
  });
});
