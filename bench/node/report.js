// Formats a node benchmark run: the markdown table and the target ratio lines.

/**
 * @typedef {object} Target a throughput ratio the issue sets
 * @property {string} subject the face measured
 * @property {string | string[]} baseline the baseline's name, or several (e.g. the MCP server
 *   modes): the ratio is shown against each, and the verdict says which ones it meets
 * @property {number} min the ratio subject / baseline must be at least this
 * @property {string} label how the target reads, e.g. ">= 30% of bare node:http"
 * @property {string} [transport] the bare server over the same transport and load client
 *   (e.g. "node:http echo"): when given, {@link budgetLines} compares the rate the target
 *   needs with what this machine's cores allow
 * @property {boolean} [capacity] the baseline is another server driven by the same stock client:
 *   {@link capacityLines} also compares the servers' CPU per call and shows the most this
 *   harness can measure with that client on this machine's cores
 *
 * @typedef {import('./load.js').LoadResult & { rounds: number, rpsMin: number, rpsMax: number }} Row
 *   a subject's figures: the median over rounds of each column, and the range of req/s
 */

const count = (/** @type {number} */ x) => Math.round(x).toLocaleString('en-US');
const ms = (/** @type {number} */ x) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 2 : 1) : '—');
const pct = (/** @type {number | undefined} */ x) => (x === undefined ? '—' : `${Math.round(x * 100)}%`);

/**
 * The 2-core ceiling of a row: the req/s at which its server and its load generator together
 * would keep `cores` cores busy, at the CPU per request they used in this run —
 * `rps × cores / (server CPU share + load CPU share)`. Server and load generator share the
 * machine, so no server reaches more than this with the same client and the same cost per
 * request; `undefined` when either CPU share is unknown.
 * @param {Row} row
 * @param {number} cores
 */
export function ceiling(row, cores) {
  if (row.serverCpu === undefined || row.loadCpu === undefined) return undefined;
  const used = row.serverCpu + row.loadCpu;
  return used > 0 ? (row.rps * cores) / used : undefined;
}

/**
 * The results as a markdown table: face | req/s | p50 ms | p99 ms, then the failed requests,
 * the CPU share of the server and of the load generator (100% = one core busy) and, over
 * several rounds, the range of req/s. Subjects whose run failed get a row saying why.
 * @param {Row[]} rows
 * @param {Map<string, string>} [failures] subjects whose run failed, with the reason
 */
export function table(rows, failures = new Map(), cores = 2) {
  const ranged = rows.some((r) => r.rounds > 1);
  const lines = [
    `| face | req/s | p50 ms | p99 ms | errors | server CPU | server main thread | server µs/call | load CPU | ${cores}-core ceiling req/s |${ranged ? ' req/s over rounds |' : ''}`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|${ranged ? '---:|' : ''}`,
  ];
  for (const r of rows) {
    const range = ranged ? ` ${count(r.rpsMin)}–${count(r.rpsMax)} |` : '';
    const top = ceiling(r, cores);
    lines.push(
      `| ${r.name} | ${count(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} | ${pct(r.serverCpu)} | ${pct(r.serverMainCpu)} | ${r.serverUsPerCall === undefined ? 'n/a' : Math.round(r.serverUsPerCall)} | ${pct(r.loadCpu)} | ${top === undefined ? '—' : count(top)} |${range}`,
    );
  }
  for (const [name, reason] of failures)
    lines.push(`| ${name} | failed: ${reason.split('\n')[0]} | | | | | | | | |`);
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

/**
 * One line per target that names its bare `transport`: the req/s the target asks of the
 * subject (its ratio times the baseline's req/s; for several baselines, the range), beside the
 * {@link ceiling} of the subject and of the bare transport with the same load client. With
 * `log` (the event log's own CPU per sync call, bench/node/log-floor.js), also the floor: the
 * most req/s this machine allows a face that costs nothing but the bare transport's server
 * work, its load generator's work and the log's appends (the cheaper of the call's events as
 * they are and, when `log.mergedUsPerCall` is given, merged into one event) — when a target
 * asks for more, no implementation that records each call in the log can meet it here.
 * @param {Row[]} rows
 * @param {Target[]} targets
 * @param {number} cores
 * @param {{ usPerCall: number, eventsPerCall: number, mergedUsPerCall?: number } | undefined} [log]
 */
export function budgetLines(rows, targets, cores, log) {
  const byName = new Map(rows.map((r) => [r.name, r]));
  return targets.flatMap((t) => {
    if (t.transport === undefined) return [];
    const subject = byName.get(t.subject);
    const bare = byName.get(t.transport);
    const baselines = (Array.isArray(t.baseline) ? t.baseline : [t.baseline])
      .map((name) => byName.get(name))
      .filter((r) => r !== undefined && r.rps > 0);
    if (subject === undefined || bare === undefined || baselines.length === 0) return [];
    const needs = baselines.map((b) => t.min * b.rps).sort((a, b) => a - b);
    const low = /** @type {number} */ (needs[0]);
    const high = /** @type {number} */ (needs[needs.length - 1]);
    const asks = low === high ? `${count(low)} req/s` : `${count(low)}–${count(high)} req/s`;
    const own = ceiling(subject, cores);
    const top = ceiling(bare, cores);
    let line = `- ${t.subject} ${t.label}: needs ${asks}; ${cores}-core ceiling of this face ${own === undefined ? 'unknown' : `${count(own)} req/s`}, of ${t.transport} ${top === undefined ? 'unknown' : `${count(top)} req/s`}`;
    const loadUs = bare.loadCpu === undefined ? undefined : (bare.loadCpu * 1e6) / bare.rps;
    if (log !== undefined && bare.serverUsPerCall !== undefined && loadUs !== undefined) {
      const base = bare.serverUsPerCall + loadUs;
      const floorUs = base + log.usPerCall;
      line +=
        `; floor: ${Math.round(bare.serverUsPerCall)} µs bare server + ${Math.round(loadUs)} µs load generator + ` +
        `${Math.round(log.usPerCall)} µs event log (${log.eventsPerCall} events) = ${Math.round(floorUs)} µs CPU per call, ` +
        `at most ${count((cores * 1e6) / floorUs)} req/s on ${cores} cores`;
      // The verdict takes the cheapest log model measured: one merged event per call, if given.
      const leastUs = base + Math.min(log.usPerCall, log.mergedUsPerCall ?? Infinity);
      if (log.mergedUsPerCall !== undefined) {
        line += `; with one merged event per call ${Math.round(leastUs)} µs, at most ${count((cores * 1e6) / leastUs)} req/s`;
      }
      const most = (cores * 1e6) / leastUs;
      if (low > most) line += ' — CANNOT be met on this machine by a face that records each call';
      else if (high > most) {
        const out = baselines.filter((b) => t.min * b.rps > most).map((b) => b.name);
        line += ` — CANNOT be met here against ${out.join(', ')}`;
      }
    } else if (top !== undefined && low > top) {
      line += " — above the bare transport's own ceiling";
    }
    return [line];
  });
}

/**
 * One line per target marked `capacity`: the two servers compared by what they cost, not by
 * what one load process can drive — server capacity = calls per second of server CPU (all
 * threads), so the ratio is the baseline's CPU per call over the subject's — and the harness
 * ceiling: with the load generator's CPU per call as measured on the baseline row (the same
 * stock client), the throughput ratio this machine can show at most, even for a server that
 * cost nothing: `(load + baseline server) / load` µs per call. When the target's ratio is above
 * that ceiling, no server can meet it in this harness on this machine; the capacity ratio is
 * then the figure that says how far the server itself is.
 * @param {Row[]} rows
 * @param {Target[]} targets
 */
export function capacityLines(rows, targets) {
  const byName = new Map(rows.map((r) => [r.name, r]));
  return targets.flatMap((t) => {
    if (t.capacity !== true || Array.isArray(t.baseline)) return [];
    const subject = byName.get(t.subject);
    const base = byName.get(t.baseline);
    if (subject?.serverUsPerCall === undefined || base?.serverUsPerCall === undefined) return [];
    const capacity = base.serverUsPerCall / subject.serverUsPerCall;
    let line =
      `- ${t.subject} ${t.label}: server capacity ${capacity.toFixed(2)}x (CPU per call ${count(subject.serverUsPerCall)} µs ` +
      `against ${count(base.serverUsPerCall)} µs) — ${capacity >= t.min ? 'MET' : 'NOT MET'} by capacity`;
    if (base.loadCpu !== undefined && base.rps > 0) {
      const loadUs = (base.loadCpu * 1e6) / base.rps;
      const most = (loadUs + base.serverUsPerCall) / loadUs;
      line += `; the stock client costs ${count(loadUs)} µs a call, so this harness shows at most ${most.toFixed(2)}x in throughput even for a server that costs nothing`;
      if (most < t.min) line += ` — the ${t.min}x throughput target CANNOT be shown on this machine`;
    }
    return [line];
  });
}
