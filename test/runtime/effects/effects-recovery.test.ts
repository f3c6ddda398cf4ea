/**
 * A charged job that was running when the node died is failed by the restart (a verb with
 * `charges` is not run again) and its charge is refunded; the ledger rebuilt from the SQLite
 * log equals the live one.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { LEDGER_EVENTS, createRuntime, memoryObserver } from '../../../src/runtime/index.js';
import { agent, request, spec, sqliteLog, tempDir } from '../helpers.js';
import { until } from '../../support/until.js';

const VERB = 'demo.priced.lookup';
const POLICY = { prices: { tokens: 100 }, tenants: { acme: 1_000 } };

function worker(run: (input: JsonValue) => Promise<JsonValue>) {
  return agent(
    'pricey',
    { [VERB]: (input) => run(input) },
    {
      verbs: [spec(VERB, { effects: { charges: ['tokens'] } })],
    },
  );
}

describe('charges across a restart', () => {
  it('refunds the charge of a job the restart failed', async () => {
    const { dir, remove } = await tempDir();
    try {
      const firstLog = sqliteLog(dir);
      await firstLog.start();
      let started = 0;
      const first = createRuntime({
        log: firstLog,
        agents: [
          worker(() => {
            started++;
            return new Promise<JsonValue>(() => undefined); // still running at the crash
          }),
        ],
        effects: { budgets: POLICY },
      });
      await first.start();
      const submitted = await first.submit(request(VERB, { q: 1 }, undefined, { tenantId: 'acme' }), {
        face: 'test',
      });
      await until(() => started === 1);
      await until(() => first.ledger.figures('tenant:acme').spent === 100);
      await firstLog.stop(); // the crash: the runtime is never stopped

      const secondLog = sqliteLog(dir);
      await secondLog.start();
      const second = createRuntime({
        log: secondLog,
        observer: memoryObserver(),
        agents: [worker((input) => Promise.resolve({ again: input }))],
        effects: { budgets: POLICY },
      });
      try {
        await second.start();
        const job = await second.jobs.get(submitted.job.id);
        expect(job.state).toBe('FAILED');
        expect(job.error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
        expect(second.ledger.figures('tenant:acme').spent).toBe(0);
        const ledger = await secondLog.read({ typePrefix: 'ledger.', causation: submitted.job.id });
        expect(ledger.map((e) => e.type)).toEqual([LEDGER_EVENTS.debited, LEDGER_EVENTS.credited]);
        // a second restart finds nothing more to refund
        expect(await second.ledger.standingOf(submitted.job.id)).toEqual([]);
        expect((await second.verify()).every((c) => c.ok)).toBe(true);
      } finally {
        await second.stop({ drainMs: 0 });
        await secondLog.stop();
      }
    } finally {
      await remove();
    }
  });
});
