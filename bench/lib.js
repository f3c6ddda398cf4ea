// Shared helpers for the benchmarks in bench/. A benchmark measures; it never asserts.
// Each one runs its subject and its baseline interleaved, in the same process and run,
// so the ratio between them holds on a noisy shared machine even when absolute times drift.

/**
 * Runs `fn` repeatedly for about `ms` milliseconds and returns operations per second.
 * @param {() => unknown} fn
 * @param {number} ms
 */
export function opsPerSecond(fn, ms = 500) {
  let ops = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(ms) * 1_000_000n;
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < 100; i++) fn();
    ops += 100;
    elapsed = process.hrtime.bigint() - start;
  }
  return (ops * 1e9) / Number(elapsed);
}

/**
 * Measures several named functions in alternating rounds and returns the median ops/s of each.
 * @param {Record<string, () => unknown>} subjects
 * @param {{ rounds?: number, ms?: number, warmupMs?: number }} [opts]
 */
export function compare(subjects, opts = {}) {
  const rounds = opts.rounds ?? 7;
  const ms = opts.ms ?? 300;
  const names = Object.keys(subjects);
  for (const name of names) opsPerSecond(subjects[name], opts.warmupMs ?? 200);
  /** @type {Record<string, number[]>} */
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples[name].push(opsPerSecond(subjects[name], ms));
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n])]));
}

/** @param {number[]} xs */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Prints a table of results and the ratio of `subject` to `baseline` against a target.
 * @param {string} title
 * @param {Record<string, number>} results ops/s by name
 * @param {{ subject: string, baseline: string, target: string, pass: (ratio: number) => boolean }} verdict
 */
export function report(title, results, verdict) {
  console.log(`\n## ${title}\n`);
  console.log('| subject | ops/s |');
  console.log('|---|---:|');
  for (const [name, ops] of Object.entries(results))
    console.log(`| ${name} | ${Math.round(ops).toLocaleString('en-US')} |`);
  const ratio = results[verdict.subject] / results[verdict.baseline];
  console.log(
    `\nratio ${verdict.subject} / ${verdict.baseline} = ${ratio.toFixed(2)}x (target ${verdict.target}): ${verdict.pass(ratio) ? 'MET' : 'NOT MET'}`,
  );
  return ratio;
}
