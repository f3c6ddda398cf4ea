/**
 * The budget ledger on both log backends: debits and refunds as events, BUDGET_EXCEEDED
 * naming remaining / requested / limit, exact affordability under concurrency, and the
 * projection rebuilt from the log equal to the live one (also after a restart).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import {
  LEDGER_EVENTS,
  budgetLedger,
  ledgerProjection,
  type BudgetLedger,
} from '../../../src/runtime/index.js';
import { rebuildProjection, projectionText, type EventLog } from '../../../src/store/index.js';
import { LOG_BACKENDS, type LogUnderTest } from '../helpers.js';

const line = (budget: string, amount: number, limit?: number) => ({
  budget,
  amount,
  meters: { calls: amount },
  ...(limit === undefined ? {} : { limit }),
});

describe.each(LOG_BACKENDS)('budget ledger on the $name log', ({ make }) => {
  let under: LogUnderTest;
  let log: EventLog;
  let ledger: BudgetLedger;

  async function open(): Promise<void> {
    under = await make();
    log = under.log;
    await log.start();
    ledger = budgetLedger({ log, now: () => 1_700_000_000_000 });
    await ledger.start();
  }

  afterEach(async () => {
    await ledger.stop();
    await log.stop();
    await under.cleanup();
  });

  it('debits, refunds and reports figures in micro-units', async () => {
    await open();
    const charge = await ledger.charge({
      id: 'j1/a',
      lines: [line('tenant:acme', 300_000, 1_000_000)],
      job: 'j1',
      tenant: 'acme',
    });
    expect(ledger.figures('tenant:acme', 1_000_000)).toEqual({
      budget: 'tenant:acme',
      spent: 300_000,
      limit: 1_000_000,
      remaining: 700_000,
    });
    await ledger.refund(charge);
    expect(ledger.figures('tenant:acme').spent).toBe(0);
    const events = await log.read({ typePrefix: 'ledger.' });
    expect(events.map((e) => e.type)).toEqual([LEDGER_EVENTS.debited, LEDGER_EVENTS.credited]);
    expect(events[0]?.causation).toBe('j1');
    expect(events[0]?.tenant).toBe('acme');
    expect(events[0]?.data).toMatchObject({
      amount: 300_000,
      budget: 'tenant:acme',
      charge: 'j1/a',
      limit: 1_000_000,
    });
  });

  it('refuses a charge past the limit with BUDGET_EXCEEDED naming remaining, requested and limit; writes nothing', async () => {
    await open();
    await ledger.charge({ id: 'j1/a', lines: [line('tenant:acme', 800_000, 1_000_000)] });
    const error = await ledger
      .charge({ id: 'j2/a', lines: [line('tenant:acme', 300_000, 1_000_000)] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlexusError);
    expect((error as PlexusError).code).toBe('BUDGET_EXCEEDED');
    expect((error as PlexusError).details).toEqual({
      budget: 'tenant:acme',
      requested: 300_000,
      remaining: 200_000,
      limit: 1_000_000,
    });
    expect((error as PlexusError).message).toContain('0.2 of its limit 1 remaining');
    expect((await log.read({ typePrefix: 'ledger.' })).length).toBe(1);
  });

  it('debits several budgets all or nothing', async () => {
    await open();
    const error = await ledger
      .charge({ id: 'j1/a', lines: [line('tenant:acme', 500, 10_000), line('principal:ci', 500, 100)] })
      .catch((e: unknown) => e as PlexusError);
    expect((error as PlexusError).details).toMatchObject({ budget: 'principal:ci' });
    expect(ledger.figures('tenant:acme').spent).toBe(0);
    await ledger.charge({
      id: 'j2/a',
      lines: [line('tenant:acme', 50, 10_000), line('principal:ci', 50, 100)],
    });
    expect(ledger.figures('tenant:acme').spent).toBe(50);
    expect(ledger.figures('principal:ci').spent).toBe(50);
  });

  it('lets exactly the affordable number of concurrent charges through', async () => {
    await open();
    const price = 70_000;
    const limit = 1_000_000; // 14 affordable
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        ledger.charge({
          id: `j${i}/a`,
          lines: [line('tenant:acme', price, limit), line(`principal:p${i % 3}`, price)],
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    expect(ok).toBe(Math.floor(limit / price));
    for (const r of results) {
      if (r.status === 'rejected') expect((r.reason as PlexusError).code).toBe('BUDGET_EXCEEDED');
    }
    expect(ledger.figures('tenant:acme').spent).toBe(ok * price);
    expect((await ledger.verify()).ok).toBe(true);
  });

  it('equals a rebuild from the log, live and after a restart', async () => {
    await open();
    const c = await ledger.charge({ id: 'j1/a', lines: [line('tenant:a', 10, 100), line('untenanted', 5)] });
    await ledger.charge({ id: 'j2/a', lines: [line('tenant:b', 7, 100)] });
    await ledger.refund(c);
    await ledger.credit('tenant:b', 3, 'top-up');
    const check = await ledger.verify();
    expect(check.ok).toBe(true);
    const live = projectionText(ledgerProjection, ledger.view.state());
    const rebuilt = await rebuildProjection(log, ledgerProjection);
    expect(projectionText(ledgerProjection, rebuilt.state)).toBe(live);
    await ledger.stop();
    await log.stop();
    log = under.reopen();
    await log.start();
    ledger = budgetLedger({ log });
    await ledger.start();
    expect(projectionText(ledgerProjection, ledger.view.state())).toBe(live);
    expect(ledger.figures('tenant:b').spent).toBe(4);
    expect(ledger.figures('tenant:a').spent).toBe(0);
  });

  it('finds a job charge still standing, and none once refunded', async () => {
    await open();
    const c = await ledger.charge({ id: 'j1/a', lines: [line('tenant:a', 10, 100)], job: 'j1', tenant: 'a' });
    expect(await ledger.standing('j1', 'j1/a')).toMatchObject({
      id: 'j1/a',
      lines: [{ budget: 'tenant:a', amount: 10 }],
    });
    await ledger.refund(c);
    expect(await ledger.standing('j1', 'j1/a')).toBeUndefined();
  });

  it('refuses malformed amounts', async () => {
    await open();
    await expect(ledger.charge({ id: 'x', lines: [line('tenant:a', 1.5)] })).rejects.toThrow(
      /whole number of micro-units/,
    );
    await expect(ledger.charge({ id: 'x', lines: [line('tenant:a', -1)] })).rejects.toThrow(/whole number/);
    await expect(ledger.credit('tenant:a', 0, 'top-up')).rejects.toThrow(/≥ 1/);
  });
});
