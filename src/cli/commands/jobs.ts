/**
 * `plexus jobs ls [--node URL | --data DIR]`, `plexus jobs show ID`, `plexus jobs cancel ID`.
 *
 * `show` and `cancel` talk to a running node (`GET` / `DELETE /v1/jobs/{id}`). `ls --node URL`
 * lists a running node's jobs through `GET /v1/jobs`, newest first (by latest status change, or
 * by submission with `--order submitted`), following `next_cursor`
 * up to `--limit`; without `--node`, `ls` reads them offline from a data directory's event log
 * (the jobs projection rebuilt from the log; it works on a running node's directory too).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { isDateTime } from '../../core/records/datetime.js';
import { JOB_STATE_TO_ESRP, type Job } from '../../core/records/job.js';
import { PlexusError } from '../../core/errors.js';
import { DEFAULT_DATA_DIR } from '../../node/node-init.js';
import {
  JOB_LIST_ORDERS,
  MAX_JOB_LIST_LIMIT,
  STATE_LIST_ACCEPTED,
  VERB_FILTER_ACCEPTED,
  checkJobListQuery,
  jobMatches,
  parseStateList,
  verbFilterProblem,
  type JobListOrder,
  type JobListQuery,
} from '../../runtime/jobs/job-list-query.js';
import { resultOfOutputs } from '../esrp-client.js';
import type { CliIo } from '../io.js';
import { nodeRequest, nodeTarget, responseError, type NodeTarget } from '../node-client.js';

interface RemoteOptions {
  readonly node?: string;
  readonly token?: string;
  readonly json: boolean;
}

const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function describeJob(io: CliIo, body: unknown): void {
  const o = isJsonObject(body) ? body : {};
  const job = isJsonObject(o['job']) ? o['job'] : {};
  const timing = isJsonObject(o['timing']) ? o['timing'] : {};
  const line = (key: string, value: string): void => {
    io.stdout(`${key.padEnd(12)} ${value}\n`);
  };
  line('job', show(job['job_id']));
  line('state', `${show(job['state'])} (${show(o['status'])})`);
  for (const [key, value] of Object.entries(timing)) line(key, show(value));
  if (o['status'] === 'succeeded') line('result', JSON.stringify(resultOfOutputs(o['outputs'])));
  const error = isJsonObject(o['error']) ? o['error'] : undefined;
  if (error !== undefined) {
    const details = isJsonObject(error['details']) ? error['details'] : {};
    line('error', `${show(error['code'])}/${show(details['plexus_code'])}: ${show(error['message'])}`);
  }
}

async function jobRequest(
  io: CliIo,
  id: string,
  opts: RemoteOptions,
  method: 'GET' | 'DELETE',
): Promise<void> {
  const target = nodeTarget({ node: opts.node, token: opts.token });
  const response = await nodeRequest(target, `/v1/jobs/${encodeURIComponent(id)}`, { method });
  const status = isJsonObject(response.body) ? response.body['status'] : undefined;
  if (response.status !== 200 || typeof status !== 'string') {
    throw responseError(response, `${method === 'GET' ? 'show' : 'cancel'} job ${id}`);
  }
  if (opts.json) io.stdout(`${JSON.stringify(response.body)}\n`);
  else describeJob(io, response.body);
}

/**
 * One line of a job read offline: id, state — by the ESRP name the node's own listing prints
 * (`succeeded`, `cancelled`…), so a job reads the same online and offline — verb, created
 * time, caller.
 */
function jobLine(job: Job): string {
  const state = JOB_STATE_TO_ESRP[job.state];
  return `${job.id}  ${state.padEnd(10)} ${job.verb.padEnd(24)} ${job.timing.createdAt}  ${job.caller}\n`;
}

/** One line of an ESRP job item: id, ESRP state, accepted time, status (and error code). */
function esrpJobLine(item: JsonObject): string {
  const job = isJsonObject(item['job']) ? item['job'] : {};
  const timing = isJsonObject(item['timing']) ? item['timing'] : {};
  const error = isJsonObject(item['error']) ? item['error'] : undefined;
  const details = isJsonObject(error?.['details']) ? error['details'] : {};
  const failure = error === undefined ? '' : `  ${show(error['code'])}/${show(details['plexus_code'])}`;
  return `${show(job['job_id'])}  ${show(job['state']).padEnd(10)} ${show(timing['accepted_at'])}  ${show(item['status'])}${failure}\n`;
}

interface LsOptions {
  readonly data: string;
  readonly node?: string;
  readonly token?: string;
  readonly state?: string;
  readonly verb?: string;
  readonly since?: string;
  readonly order?: string;
  readonly limit?: string;
  readonly json: boolean;
}

/** The filters of `ls` (checked), and the limit. */
function lsQuery(opts: LsOptions): { query: JobListQuery; limit: number | undefined } {
  const query: { -readonly [K in keyof JobListQuery]: JobListQuery[K] } = {};
  if (opts.order !== undefined) {
    if (opts.node === undefined) {
      throw new PlexusError(
        'INVALID_PARAMS',
        '--order needs --node: a data directory is listed oldest first, in submission order',
      );
    }
    if (!(JOB_LIST_ORDERS as readonly string[]).includes(opts.order)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `--order must be one of ${JOB_LIST_ORDERS.join(', ')}, got ${JSON.stringify(opts.order)}`,
      );
    }
    query.order = opts.order as JobListOrder;
  }
  if (opts.state !== undefined) query.states = parseStateList([opts.state], '--state');
  if (opts.verb !== undefined) {
    const problem = verbFilterProblem(opts.verb);
    if (problem !== undefined) {
      throw new PlexusError('INVALID_PARAMS', `--verb: ${problem}; accepted: ${VERB_FILTER_ACCEPTED}`);
    }
    query.verb = opts.verb;
  }
  if (opts.since !== undefined) {
    if (!isDateTime(opts.since)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `--since must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z, got ${JSON.stringify(opts.since)}`,
      );
    }
    query.since = opts.since;
  }
  if (opts.limit !== undefined && !/^[1-9]\d*$/.test(opts.limit)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `--limit must be a whole number ≥ 1, got ${JSON.stringify(opts.limit)}`,
    );
  }
  return { query, limit: opts.limit === undefined ? undefined : Number(opts.limit) };
}

/** The `GET /v1/jobs` path of one page. */
function listPath(query: JobListQuery, pageSize: number, cursor: string | undefined): string {
  const params = new URLSearchParams();
  if (query.order !== undefined) params.set('order', query.order);
  if (query.states !== undefined) params.set('state', query.states.join(','));
  if (query.verb !== undefined) params.set('verb', query.verb);
  if (query.since !== undefined) params.set('since', query.since);
  params.set('limit', String(pageSize));
  if (cursor !== undefined) params.set('cursor', cursor);
  return `/v1/jobs?${params.toString()}`;
}

/**
 * Lists a running node's jobs (`GET /v1/jobs`), newest first, page after page until `limit`
 * jobs are printed or the node has no more. Returns how many were printed.
 */
async function listRemote(
  io: CliIo,
  target: NodeTarget,
  query: JobListQuery,
  limit: number | undefined,
  json: boolean,
): Promise<number> {
  let printed = 0;
  let cursor: string | undefined;
  for (;;) {
    const pageSize = Math.min(MAX_JOB_LIST_LIMIT, limit === undefined ? MAX_JOB_LIST_LIMIT : limit - printed);
    const response = await nodeRequest(target, listPath(query, pageSize, cursor));
    const body = isJsonObject(response.body) ? response.body : undefined;
    const items = body?.['jobs'];
    if (response.status !== 200 || !Array.isArray(items)) throw responseError(response, 'list jobs');
    for (const item of items) {
      if (!isJsonObject(item)) continue;
      io.stdout(json ? `${JSON.stringify(item)}\n` : esrpJobLine(item));
      printed++;
      if (limit !== undefined && printed >= limit) return printed;
    }
    const next = body?.['next_cursor'];
    if (typeof next !== 'string' || next === '') return printed;
    cursor = next;
  }
}

/** Adds `jobs ls|show|cancel` to the program. */
export function registerJobs(program: Command, io: CliIo): void {
  const jobs = program.command('jobs').description("list, show and cancel a node's jobs");
  jobs
    .command('ls')
    .description(
      "list a running node's jobs, newest first (--node, GET /v1/jobs), or those recorded in a data directory (read offline from its event log)",
    )
    .option('-n, --node <url>', 'list through this running node (GET /v1/jobs) instead of reading --data')
    .option('-t, --token <token>', 'with --node: bearer token or API key (default $PLEXUS_TOKEN)')
    .option('--data <dir>', "without --node: the node's data directory", DEFAULT_DATA_DIR)
    .option('--state <states>', `only jobs in these states (${STATE_LIST_ACCEPTED})`)
    .option('--verb <verb>', 'only jobs of this verb, or of a prefix pattern such as demo.*')
    .option('--since <time>', 'only jobs created at or after this RFC 3339 date-time')
    .option(
      '--order <order>',
      'with --node: status (default: by latest status change, newest first) or submitted (by submission)',
    )
    .option('--limit <n>', 'only the newest N jobs')
    .option('--json', 'print the jobs as JSON lines (with --node: their ESRP job form)', false)
    .action(async (opts: LsOptions) => {
      const { query, limit } = lsQuery(opts);
      let count: number;
      if (opts.node !== undefined) {
        const target = nodeTarget({ node: opts.node, token: opts.token });
        count = await listRemote(io, target, query, limit, opts.json);
      } else {
        const checked = checkJobListQuery(query);
        const { jobsOfDataDir } = await import('../../node/data-dir-replay.js');
        let list = (await jobsOfDataDir(resolve(io.cwd, opts.data))).filter((j) => jobMatches(checked, j));
        if (limit !== undefined) list = list.slice(-limit);
        for (const job of list) io.stdout(opts.json ? `${JSON.stringify(job)}\n` : jobLine(job));
        count = list.length;
      }
      if (!opts.json) io.stderr(`${count} job${count === 1 ? '' : 's'}\n`);
    });
  const remote = (command: Command): Command =>
    command
      .option('-n, --node <url>', 'the node (default $PLEXUS_NODE or http://127.0.0.1:3100)')
      .option('-t, --token <token>', 'bearer token or API key (default $PLEXUS_TOKEN)')
      .option('--json', 'print the ESRP job snapshot as JSON', false);
  remote(
    jobs.command('show').description('show a job (GET /v1/jobs/{id})').argument('<id>', 'the job id'),
  ).action(async (id: string, opts: RemoteOptions) => {
    await jobRequest(io, id, opts, 'GET');
  });
  remote(
    jobs
      .command('cancel')
      .description('cancel a queued or running job (DELETE /v1/jobs/{id})')
      .argument('<id>', 'the job id'),
  ).action(async (id: string, opts: RemoteOptions) => {
    await jobRequest(io, id, opts, 'DELETE');
  });
}
