/**
 * `plexus jobs ls [--data DIR]`, `plexus jobs show ID`, `plexus jobs cancel ID`.
 *
 * `show` and `cancel` talk to a running node (`GET` / `DELETE /v1/jobs/{id}`). The node has
 * no route that lists jobs, so `ls` reads them offline from a data directory's event log
 * (the jobs projection rebuilt from the log); it works on a running node's directory too.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { isJsonObject } from '../../core/json.js';
import { JOB_STATES, type Job } from '../../core/records/job.js';
import { PlexusError } from '../../core/errors.js';
import { DEFAULT_DATA_DIR, jobsOfDataDir } from '../../node/index.js';
import { resultOfOutputs } from '../esrp-client.js';
import type { CliIo } from '../io.js';
import { nodeRequest, nodeTarget, responseError } from '../node-client.js';

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

function jobLine(job: Job): string {
  return `${job.id}  ${job.state.padEnd(10)} ${job.verb.padEnd(24)} ${job.timing.createdAt}  ${job.caller}\n`;
}

/** Adds `jobs ls|show|cancel` to the program. */
export function registerJobs(program: Command, io: CliIo): void {
  const jobs = program.command('jobs').description("list, show and cancel a node's jobs");
  jobs
    .command('ls')
    .description("list the jobs recorded in a node's data directory (read offline from its event log)")
    .option('--data <dir>', "the node's data directory", DEFAULT_DATA_DIR)
    .option('--state <state>', `only jobs in this state (${JOB_STATES.join(', ')})`)
    .option('--limit <n>', 'only the newest N jobs')
    .option('--json', 'print the jobs as JSON lines', false)
    .action(async (opts: { data: string; state?: string; limit?: string; json: boolean }) => {
      const state = opts.state?.toUpperCase();
      if (state !== undefined && !(JOB_STATES as readonly string[]).includes(state)) {
        throw new PlexusError(
          'INVALID_PARAMS',
          `--state must be one of ${JOB_STATES.join(', ')}, got ${JSON.stringify(opts.state)}`,
        );
      }
      if (opts.limit !== undefined && !/^[1-9]\d*$/.test(opts.limit)) {
        throw new PlexusError(
          'INVALID_PARAMS',
          `--limit must be a whole number ≥ 1, got ${JSON.stringify(opts.limit)}`,
        );
      }
      let list = (await jobsOfDataDir(resolve(io.cwd, opts.data))).filter(
        (j) => state === undefined || j.state === state,
      );
      if (opts.limit !== undefined) list = list.slice(-Number(opts.limit));
      for (const job of list) io.stdout(opts.json ? `${JSON.stringify(job)}\n` : jobLine(job));
      if (!opts.json) io.stderr(`${list.length} job${list.length === 1 ? '' : 's'}\n`);
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
