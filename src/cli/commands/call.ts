/**
 * `plexus call VERB [--data JSON|@FILE] [--input NAME=TEXT|NAME=@FILE]… [--node URL]
 * [--token T] [--async] [--follow] [--json] [--timeout MS] [--idempotency-key K]`: calls a
 * verb on a running node through its ESRP face.
 *
 * - default: `POST /v1/execute` (sync) and prints the result;
 * - `--async`: `POST /v1/jobs` and prints the job id;
 * - `--follow` (alone or with `--async`): submits the job, shows its progress live from
 *   `GET /v1/jobs/{id}/events` (SSE, resumed with `Last-Event-ID` if the stream drops) and
 *   prints the result; Ctrl-C cancels the job (`DELETE /v1/jobs/{id}`), a second Ctrl-C stops
 *   waiting.
 *
 * `--data` becomes the JSON input named `input` (the verb's whole input; `{}` when absent);
 * each `--input` an ESRP text input. A failed job exits 1
 * with one line naming the job, the ESRP code, the Plexus code and the message.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import { parseJson } from '../../core/parse-json.js';
import {
  buildEsrpRequest,
  esrpFailure,
  followJobEvents,
  jobIdOf,
  resultOfOutputs,
  type CliInput,
} from '../esrp-client.js';
import { fileError, type CliIo } from '../io.js';
import { nodeRequest, nodeTarget, responseError, type NodeTarget } from '../node-client.js';
import { progressDisplay } from '../progress.js';
import { onInterrupt } from '../signals.js';

/** The flags of `plexus call`. */
export interface CallOptions {
  readonly data?: string;
  readonly input: string[];
  readonly node?: string;
  readonly token?: string;
  readonly async: boolean;
  readonly follow: boolean;
  readonly json: boolean;
  readonly timeout?: string;
  readonly idempotencyKey?: string;
}

/** How `call` meets the terminal: whether stderr is one, and Ctrl-C. */
export interface CallTerminal {
  readonly isTTY: boolean;
  /** Calls `handler` on Ctrl-C until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
}

const processTerminal = (): CallTerminal => ({ isTTY: process.stderr.isTTY, onInterrupt });

async function readArgument(io: CliIo, value: string, what: string): Promise<string> {
  if (value === '@-') return io.readStdin();
  if (!value.startsWith('@')) return value;
  const file = value.slice(1);
  try {
    return await readFile(resolve(io.cwd, file), 'utf8');
  } catch (cause) {
    throw fileError(`${file} (${what})`, cause);
  }
}

async function inputsOf(io: CliIo, specs: readonly string[]): Promise<CliInput[]> {
  const out: CliInput[] = [];
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq <= 0)
      throw new PlexusError(
        'INVALID_PARAMS',
        `--input must be NAME=TEXT or NAME=@FILE, got ${JSON.stringify(spec)}`,
      );
    const name = spec.slice(0, eq);
    out.push({ name, data: await readArgument(io, spec.slice(eq + 1), `--input ${name}`) });
  }
  return out;
}

function timeoutOf(value: string | undefined, async: boolean): number {
  if (value === undefined) return async ? 300_000 : 30_000;
  if (!/^[1-9]\d{0,7}$/.test(value)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `--timeout must be a whole number of ms from 1 to 99999999, got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

function printResult(io: CliIo, body: unknown, json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(body)}\n`);
    return;
  }
  const outputs = isJsonObject(body) ? (body as Record<string, unknown>)['outputs'] : undefined;
  io.stdout(`${JSON.stringify(resultOfOutputs(outputs), null, 2)}\n`);
}

function statusOf(body: unknown): unknown {
  return isJsonObject(body) ? (body as Record<string, unknown>)['status'] : undefined;
}

/** Checks an ESRP answer: returns it when `succeeded` / `accepted`, throws its failure otherwise. */
function checkAnswer(
  response: { status: number; body: unknown; text: string; headers: Headers },
  verb: string,
): unknown {
  const status = statusOf(response.body);
  if (status === 'failed') throw esrpFailure(response.body, verb);
  if (status === 'succeeded' || status === 'accepted') return response.body;
  throw responseError(response, verb);
}

async function followAndFinish(
  io: CliIo,
  target: NodeTarget,
  verb: string,
  jobId: string,
  opts: CallOptions,
  terminal: CallTerminal,
): Promise<void> {
  const display = progressDisplay(
    (t) => {
      io.stderr(t);
    },
    terminal.isTTY,
    `${verb} ${jobId.slice(0, 8)}`,
  );
  const stopFollowing = new AbortController();
  let cancelling = false;
  const release = terminal.onInterrupt(() => {
    if (cancelling) {
      stopFollowing.abort();
      return;
    }
    cancelling = true;
    display.update({ name: 'cancelling' });
    void nodeRequest(target, `/v1/jobs/${encodeURIComponent(jobId)}`, { method: 'DELETE' }).catch(
      () => undefined,
    );
  });
  const spinner = terminal.isTTY
    ? setInterval(() => {
        display.tick();
      }, 120)
    : undefined;
  try {
    for await (const event of followJobEvents(target, jobId, { signal: stopFollowing.signal })) {
      let data: unknown = event.data;
      try {
        data = JSON.parse(event.data);
      } catch {
        // keep the text
      }
      const progress = isJsonObject(data) ? (data as Record<string, unknown>)['progress'] : undefined;
      display.update({ name: event.event, ...(event.event === 'job_progress' ? { data: progress } : {}) });
    }
  } finally {
    if (spinner !== undefined) clearInterval(spinner);
    display.done();
    release();
  }
  const final = await nodeRequest(target, `/v1/jobs/${encodeURIComponent(jobId)}`);
  const body = checkAnswer(final, verb);
  if (statusOf(body) !== 'succeeded') throw responseError(final, `${verb} (job ${jobId})`);
  printResult(io, body, opts.json);
}

/**
 * Runs `plexus call`.
 *
 * @throws PlexusError for bad flags, an unreachable node, a refused request or a failed job.
 */
export async function runCall(
  io: CliIo,
  verb: string,
  opts: CallOptions,
  terminal: CallTerminal = processTerminal(),
): Promise<void> {
  const target = nodeTarget({ node: opts.node, token: opts.token });
  const data =
    opts.data === undefined ? {} : parseJson(await readArgument(io, opts.data, '--data'), '--data');
  const async = opts.async || opts.follow;
  const timeoutMs = timeoutOf(opts.timeout, async);
  const request = buildEsrpRequest({
    verb,
    data,
    inputs: await inputsOf(io, opts.input),
    async,
    timeoutMs,
    ...(opts.idempotencyKey === undefined ? {} : { idempotencyKey: opts.idempotencyKey }),
  });
  if (!async) {
    const waiting = terminal.isTTY
      ? progressDisplay(
          (t) => {
            io.stderr(t);
          },
          true,
          verb,
        )
      : undefined;
    const spinner =
      waiting === undefined
        ? undefined
        : setInterval(() => {
            waiting.tick();
          }, 120);
    try {
      const response = await nodeRequest(target, '/v1/execute', {
        method: 'POST',
        body: request,
        timeoutMs: timeoutMs + 10_000,
      });
      printResult(io, checkAnswer(response, verb), opts.json);
    } finally {
      if (spinner !== undefined) clearInterval(spinner);
      waiting?.done();
    }
    return;
  }
  const submitted = await nodeRequest(target, '/v1/jobs', { method: 'POST', body: request });
  const body = checkAnswer(submitted, verb);
  const jobId = jobIdOf(body);
  if (jobId === undefined)
    throw responseError(submitted, `${verb}: the node accepted the job but named no job id`);
  if (!opts.follow) {
    if (opts.json) io.stdout(`${JSON.stringify(body)}\n`);
    else {
      io.stdout(`${jobId}\n`);
      io.stderr(`job ${jobId} accepted; follow it with: plexus jobs show ${jobId} --node ${target.url}\n`);
    }
    return;
  }
  await followAndFinish(io, target, verb, jobId, opts, terminal);
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** Adds `call` to the program. */
export function registerCall(program: Command, io: CliIo): void {
  program
    .command('call')
    .description('call a verb on a running node through its ESRP face')
    .argument('<verb>', 'the verb, e.g. math.evaluate')
    .option('-d, --data <json>', "the verb's input as JSON, @FILE, or @- for stdin (default {})")
    .option(
      '-i, --input <name=text>',
      'an ESRP text input, NAME=TEXT or NAME=@FILE (repeat for more)',
      collect,
      [],
    )
    .option('-n, --node <url>', 'the node (default $PLEXUS_NODE or http://127.0.0.1:3100)')
    .option('-t, --token <token>', 'bearer token or API key (default $PLEXUS_TOKEN)')
    .option('--async', 'submit the job and print its id', false)
    .option(
      '-f, --follow',
      'submit the job, show its progress live, then print the result (Ctrl-C cancels)',
      false,
    )
    .option('--json', 'print the ESRP response as JSON', false)
    .option('--timeout <ms>', 'job timeout (default 30000, or 300000 with --async/--follow)')
    .option('--idempotency-key <key>', 'ESRP idempotency_key (default: the payload hash)')
    .action(async (verb: string, opts: CallOptions) => {
      await runCall(io, verb, opts);
    });
}
