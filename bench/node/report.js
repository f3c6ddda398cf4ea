// Formats a node benchmark run: the markdown table and the target ratio lines.

/**
 * @typedef {object} Target a throughput ratio the issue sets
 * @property {string} subject the face measured
 * @property {string | string[]} baseline the baseline's name, or several (e.g. the MCP server
 *   modes): the ratio is shown against each, and the verdict says which ones it meets
 * @property {number} min the ratio subject / baseline must be at least this
 * @property {string} label how the target reads, e.g. ">= 30% of bare node:http"
 *
 * @typedef {import('./load.js').LoadResult & { rounds: number, rpsMin: number, rpsMax: number }} Row
 *   a subject's figures: the median over rounds of each column, and the range of req/s
 */

const count = (/** @type {number} */ x) => Math.round(x).toLocaleString('en-US');
const ms = (/** @type {number} */ x) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 2 : 1) : '—');
const pct = (/** @type {number | undefined} */ x) => (x === undefined ? '—' : `${Math.round(x * 100)}%`);

/**
 * The results as a markdown table: face | req/s | p50 ms | p99 ms, then the failed requests,
 * the CPU share of the server and of the load generator (100% = one core busy) and, over
 * several rounds, the range of req/s. Subjects whose run failed get a row saying why.
 * @param {Row[]} rows
 * @param {Map<string, string>} [failures] subjects whose run failed, with the reason
 */
export function table(rows, failures = new Map()) {
  const ranged = rows.some((r) => r.rounds > 1);
  const lines = [
    `| face | req/s | p50 ms | p99 ms | errors | server CPU | server main thread | server µs/call | load CPU |${ranged ? ' req/s over rounds |' : ''}`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|${ranged ? '---:|' : ''}`,
  ];
  for (const r of rows) {
    const range = ranged ? ` ${count(r.rpsMin)}–${count(r.rpsMax)} |` : '';
    lines.push(
      `| ${r.name} | ${count(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} | ${pct(r.serverCpu)} | ${pct(r.serverMainCpu)} | ${r.serverUsPerCall === undefined ? 'n/a' : Math.round(r.serverUsPerCall)} | ${pct(r.loadCpu)} |${range}`,
    );
  }
  for (const [name, reason] of failures)
    lines.push(`| ${name} | failed: ${reason.split('\n')[0]} | | | | | | | |`);
  return lines.join('\n');
}

/**
 * One line per target: the measured ratio against each named baseline that was measured, and
 * whether the target is met against all of them, some, or none — or why nothing was computed.
 * @param {Row[]} rows
 * @param {Target[]} targets
 */
export function ratioLines(rows, targets) {
  const byName = new Map(rows.map((r) => [r.name, r]));
  return targets.map((t) => {
    const head = `- ${t.subject} ${t.label}:`;
    const subject = byName.get(t.subject);
    if (subject === undefined) return `${head} not measured (no subject "${t.subject}" in this run)`;
    const baselines = (Array.isArray(t.baseline) ? t.baseline : [t.baseline])
      .map((name) => byName.get(name))
      .filter((r) => r !== undefined && r.rps > 0);
    if (baselines.length === 0) return `${head} no baseline measured`;
    const ratios = baselines.map((b) => ({ name: b.name, ratio: subject.rps / b.rps }));
    const shown = ratios
      .map(({ name, ratio }) =>
        t.min < 1 ? `${(ratio * 100).toFixed(0)}% of ${name}` : `${ratio.toFixed(1)}x ${name}`,
      )
      .join(', ');
    const met = ratios.filter((r) => r.ratio >= t.min);
    const verdict =
      met.length === ratios.length
        ? 'MET'
        : met.length === 0
          ? 'NOT MET'
          : `MET against ${met.map((r) => r.name).join(', ')} only`;
    return `${head} ${shown} — ${verdict}`;
  });
}
