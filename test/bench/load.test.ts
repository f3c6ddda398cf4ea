// A smoke test of the benchmark load generator (bench/node/load.js): small bounded runs against
// the bare baseline servers, each in its own process as in the benchmark. It checks that every
// answer is checked and that the counts add up; it never asserts a timing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subjects } from '../../bench/node/baselines.js';
import { forkLoad, percentile } from '../../bench/node/load.js';
import type { Subject } from '../../bench/node/load.js';

const BASELINES = new URL('../../bench/node/baselines.js', import.meta.url).href;
const FIXTURES = new URL('./fixtures/subjects.js', import.meta.url).href;

function baseline(name: string): Subject {
  const subject = subjects.find((s) => s.name === name);
  if (subject === undefined) throw new Error(`no baseline named ${name}`);
  return subject;
}

describe('load generator', () => {
  let http: Awaited<ReturnType<Subject['start']>>;
  let ws: Awaited<ReturnType<Subject['start']>>;

  beforeAll(async () => {
    [http, ws] = await Promise.all([
      baseline('node:http echo').start(),
      baseline('ws JSON-RPC echo').start(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([http.stop(), ws.stop()]);
  });

  it('answers every request of a bounded HTTP run correctly', async () => {
    const r = await forkLoad({
      module: BASELINES,
      subject: 'node:http echo',
      url: http.url,
      clients: 5,
      requests: 200,
      serverPid: http.pid,
    });
    expect(r).toMatchObject({
      name: 'node:http echo',
      client: 'http',
      clients: 5,
      sent: 200,
      ok: 200,
      errors: 0,
    });
    expect(r.firstError).toBeUndefined();
    expect(r.rps).toBeGreaterThan(0);
    expect(r.p50).toBeLessThanOrEqual(r.p99);
    expect(r.p99).toBeLessThanOrEqual(r.max);
  });

  it('answers every request of a bounded WebSocket JSON-RPC run correctly', async () => {
    const r = await forkLoad({
      module: BASELINES,
      subject: 'ws JSON-RPC echo',
      url: ws.url,
      clients: 4,
      requests: 100,
    });
    expect(r).toMatchObject({ client: 'ws-jsonrpc', sent: 100, ok: 100, errors: 0 });
  });

  it('counts a wrong answer as an error, not as throughput', async () => {
    const r = await forkLoad({
      module: FIXTURES,
      subject: 'odd answers rejected',
      url: http.url,
      clients: 5,
      requests: 200,
    });
    expect(r).toMatchObject({ sent: 200, ok: 100, errors: 100 });
    expect(r.firstError).toMatch(/wrong answer to request \d*[13579]$/);
  });

  it('stops by itself after a fixed duration with sent = ok + errors', async () => {
    const r = await forkLoad({
      module: BASELINES,
      subject: 'node:http echo',
      url: http.url,
      clients: 3,
      seconds: 0.3,
    });
    expect(r.ok).toBeGreaterThan(0);
    expect(r.errors).toBe(0);
    expect(r.sent).toBe(r.ok + r.errors);
  });

  it('counts refused connections as errors and still stops', async () => {
    const gone = await baseline('node:http echo').start();
    await gone.stop();
    const r = await forkLoad({
      module: BASELINES,
      subject: 'node:http echo',
      url: gone.url,
      clients: 2,
      requests: 20,
    });
    expect(r).toMatchObject({ sent: 20, ok: 0, errors: 20 });
    expect(r.firstError).toMatch(/ECONNREFUSED/);
    expect(r.p50).toBeNaN();
  });

  it('rejects a subject name its module does not define', async () => {
    await expect(
      forkLoad({ module: BASELINES, subject: 'no such face', url: http.url, requests: 1 }),
    ).rejects.toThrow(/no subject named "no such face"/);
  });
});

describe('percentile', () => {
  const hundred = Array.from({ length: 100 }, (_, k) => k + 1);

  it('picks by nearest rank', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile([7], 50)).toBe(7);
  });

  it('is NaN for no samples', () => {
    expect(percentile([], 50)).toBeNaN();
  });
});
