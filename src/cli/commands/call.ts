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
 *
 * Projection hints (seed 002 Part V; see `../call-projection.ts`), read from `--manifest FILE`
 * or from the node's discovery data: `cli:prompt` asks `… [y/N]` on a terminal before anything
 * is sent (`--yes` skips the question; without a terminal and without `--yes` the call is
 * refused, exit 1); `cli:json` prints the output as one line of JSON (its `jq` path applied);
 * `cli:table` prints a list as a table. `--json` (the whole ESRP response) overrides both.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { ProjectionHints } from '../../core/records/verb-spec.js';
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
import {
  CLI_PROJECTIONS,
  hintsFromManifest,
  hintsFromNode,
  promptText,
  renderOutput,
} from '../call-projection.js';
import { printWarnings } from '../call-warnings.js';
import { askYesNo } from '../confirm.js';
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
  /** Run a verb whose hints ask for confirmation (`cli:prompt`) without asking. */
  readonly yes?: boolean;
  /** Read projection hints from this manifest instead of the node. */
  readonly manifest?: string;
}

/** How `call` meets the terminal: whether stderr is one, and Ctrl-C. */
export interface CallTerminal {
  readonly isTTY: boolean;
  /** Calls `handler` on Ctrl-C until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
  /** Whether a person can answer a question (stdin and stderr are terminals). @default false */
  readonly interactive?: boolean;
  /** Whether stdout is a terminal (`cli:table` is preferred over `cli:json` there). @default false */
  readonly stdoutIsTTY?: boolean;
  /** Asks a yes/no question; needed when `interactive`. */
  confirm?(question: string): Promise<boolean>;
}

const processTerminal = (): CallTerminal => ({
  isTTY: process.stderr.isTTY,
  onInterrupt,
  interactive: process.stdin.isTTY && process.stderr.isTTY,
  stdoutIsTTY: process.stdout.isTTY,
  confirm: (question) => askYesNo(question, process.stdin, process.stderr),
});

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

/** How to print a result: `--json`, or the verb's hints. */
interface PrintMode {
  readonly json: boolean;
  readonly hints: ProjectionHints;
  readonly stdoutIsTTY: boolean;
}

function printResult(io: CliIo, body: unknown, mode: PrintMode): void {
  if (mode.json) {
    io.stdout(`${JSON.stringify(body)}\n`);
    return;
  }
  const outputs = isJsonObject(body) ? (body as Record<string, unknown>)['outputs'] : undefined;
  const rendered = renderOutput(resultOfOutputs(outputs), mode.hints, mode.stdoutIsTTY);
  if (rendered.warning !== undefined) io.stderr(`plexus: ${rendered.warning}\n`);
  io.stdout(rendered.text);
}

/** The verb's projection hints: from `--manifest`, else the node's, when they can matter. */
async function hintsOf(
  io: CliIo,
  target: NodeTarget,
  verb: string,
  opts: CallOptions,
): Promise<ProjectionHints> {
  if (opts.manifest !== undefined) return hintsFromManifest(io, opts.manifest, verb);
  const printsOutput = !opts.json && !(opts.async && !opts.follow);
  if (opts.yes === true && !printsOutput) return {};
  return (await hintsFromNode(target, verb)) ?? {};
}

/**
 * Asks for confirmation when the hints carry `cli:prompt` and `--yes` was not given.
 *
 * @throws PlexusError `CANCELLED` when the answer is no; `INVALID_REQUEST` when nobody can be
 *   asked (no terminal).
 */
async function confirmCall(
  verb: string,
  data: JsonValue,
  hints: ProjectionHints,
  opts: CallOptions,
  terminal: CallTerminal,
): Promise<void> {
  const hint = hints[CLI_PROJECTIONS.prompt];
  if (hint === undefined || opts.yes === true) return;
  if (terminal.interactive !== true || terminal.confirm === undefined) {
    throw new PlexusError(
      'INVALID_REQUEST',
      `${verb} asks for confirmation before it runs (projection ${CLI_PROJECTIONS.prompt}) and there is no terminal to ask on; pass --yes to run it anyway`,
    );
  }
  if (!(await terminal.confirm(promptText(verb, hint, data)))) {
    throw new PlexusError('CANCELLED', `${verb} was not run: not confirmed`);
  }
}

function statusOf(body: unknown): unknown {
  return isJsonObject(body) ? (body as Record<string, unknown>)['status'] : undefined;
}

/** Checks an ESRP answer: returns it when `succeeded` / `accepted`, throws its failure otherwise. */
function checkAnswer(
  response: { status: number; body: unknown; text: string; headers: Headers },
  verb: string,
  io?: CliIo,
): unknown {
  if (io !== undefined) printWarnings(io, response.body, response.headers);
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
  mode: PrintMode,
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
  const body = checkAnswer(final, verb, io);
  if (statusOf(body) !== 'succeeded') throw responseError(final, `${verb} (job ${jobId})`);
  printResult(io, body, mode);
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
  const hints = await hintsOf(io, target, verb, opts);
  await confirmCall(verb, data, hints, opts, terminal);
  const mode: PrintMode = { json: opts.json, hints, stdoutIsTTY: terminal.stdoutIsTTY === true };
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
      printResult(io, checkAnswer(response, verb, io), mode);
    } finally {
      if (spinner !== undefined) clearInterval(spinner);
      waiting?.done();
    }
    return;
  }
  const submitted = await nodeRequest(target, '/v1/jobs', { method: 'POST', body: request });
  // with --follow, the final answer's warnings are printed (once) when the job ends
  const body = checkAnswer(submitted, verb, opts.follow ? undefined : io);
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
  await followAndFinish(io, target, verb, jobId, mode, terminal);
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
    .option('-y, --yes', 'run without asking, even when the verb asks for confirmation (cli:prompt)', false)
    .option('-m, --manifest <file>', "read the verb's projection hints from this manifest, not from the node")
    .action(async (verb: string, opts: CallOptions) => {
      await runCall(io, verb, opts);
    });
}
