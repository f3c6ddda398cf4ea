/**
 * The ESRP side of `plexus call` and `plexus jobs`: building an ESRP v1 request for a verb,
 * reading the answer's outputs, and following a job's events over SSE with resume.
 *
 * Verb → ESRP target: the last segment is the `operation`, everything before it the
 * `service` (`math.evaluate` → `math` / `evaluate`; `atelier.session.start` →
 * `atelier.session` / `start`), as the ESRP codec splits verbs. The node's ESRP face sends the
 * request to the agent whose id is the service when there is one, else to whoever offers
 * the verb.
 */
import { randomUUID } from 'node:crypto';
import { PlexusError, isPlexusErrorCode } from '../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';
import { callNameProblem, esrpTargetOfCallName } from '../core/verb-alias.js';
import { stripVerbVersion } from '../core/verb-name.js';
import { authHeaders, type NodeTarget } from './node-client.js';
import { readSse, type SseEvent } from './sse.js';

/** The ESRP job event names that end a job's stream. */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['job_succeeded', 'job_failed', 'job_cancelled']);

/** One ESRP input given on the command line (`--input NAME=TEXT`). */
export interface CliInput {
  readonly name: string;
  readonly data: string;
  readonly contentType?: string;
}

/** The name of the ESRP input that carries a call's `--data` (the verb's whole input, as JSON). */
export const DATA_INPUT_NAME = 'input';

/** What a call asks for. */
export interface EsrpCallInit {
  readonly verb: string;
  /** The verb's input, sent as the JSON input named `input`. @default {} */
  readonly data?: JsonValue;
  /** More ESRP inputs (text). */
  readonly inputs?: readonly CliInput[];
  /** ESRP `params`. @default null */
  readonly params?: JsonValue;
  readonly async: boolean;
  readonly timeoutMs: number;
  readonly idempotencyKey?: string;
}

/** `service` and `operation` of a verb or verb alias. @throws PlexusError `INVALID_PARAMS` for a bad verb or one with `@version`. */
export function esrpTargetOf(verb: string): { service: string; operation: string } {
  if (verb.includes('@') && callNameProblem(verb) === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `plexus call speaks ESRP, whose target has no version: call ${stripVerbVersion(verb)} without "${verb.slice(verb.indexOf('@'))}"`,
    );
  }
  // a verb name or a seed alias (`state.createSession`): the node resolves the alias
  return esrpTargetOfCallName(verb);
}

/**
 * Builds the ESRP v1 request of a call: `--data` becomes the `application/json` input named
 * `input` (an ESRP request needs at least one input, and JSON text keeps numbers that ESRP's
 * canonical form would refuse in `params`), each `--input` a `text/plain` input.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad verb.
 */
export function buildEsrpRequest(init: EsrpCallInit): JsonObject {
  return {
    esrp_version: '1.0',
    request_id: randomUUID(),
    ...(init.idempotencyKey === undefined ? {} : { idempotency_key: init.idempotencyKey }),
    timestamp: new Date().toISOString(),
    caller: { system: 'plexus-cli' },
    target: esrpTargetOf(init.verb),
    mode: { type: init.async ? 'async' : 'sync', timeout_ms: init.timeoutMs },
    inputs: [
      {
        name: DATA_INPUT_NAME,
        content_type: 'application/json',
        data: JSON.stringify(init.data ?? {}),
        encoding: 'utf-8',
        metadata: null,
      },
      ...(init.inputs ?? []).map((i) => ({
        name: i.name,
        content_type: i.contentType ?? 'text/plain',
        data: i.data,
        encoding: 'utf-8',
        metadata: null,
      })),
    ],
    params: init.params ?? null,
  };
}

export { resultOfOutputs } from '../wire/esrp/outputs.js';

/** The job id an ESRP answer names, if any. */
export function jobIdOf(response: unknown): string | undefined {
  const job = isJsonObject(response) ? response['job'] : undefined;
  return isJsonObject(job) && typeof job['job_id'] === 'string' ? job['job_id'] : undefined;
}

/** The error of a failed ESRP answer, as a PlexusError naming the job. */
export function esrpFailure(response: unknown, what: string): PlexusError {
  const body = isJsonObject(response) ? response : {};
  const error = isJsonObject(body['error']) ? body['error'] : {};
  const details = isJsonObject(error['details']) ? error['details'] : {};
  const plexusCode = details['plexus_code'];
  const code = isPlexusErrorCode(plexusCode) ? plexusCode : 'INTERNAL';
  const esrpCode = typeof error['code'] === 'string' ? error['code'] : 'UNKNOWN';
  const message = typeof error['message'] === 'string' ? error['message'] : 'no error message';
  const job = jobIdOf(body);
  const state = isJsonObject(body['job']) ? body['job']['state'] : undefined;
  const label = state === 'cancelled' ? 'was cancelled' : 'failed';
  return new PlexusError(
    code,
    `${what}${job === undefined ? '' : ` (job ${job})`} ${label}: ${esrpCode}${typeof plexusCode === 'string' ? `/${plexusCode}` : ''}: ${message}`,
  );
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Options of {@link followJobEvents}. */
export interface FollowOptions {
  /** Resume after this event id (`Last-Event-ID`). @default none */
  readonly lastEventId?: string;
  /** Stops following. */
  readonly signal?: AbortSignal;
  /** Most reconnections after the stream drops before the job ended. @default 5 */
  readonly maxReconnects?: number;
}

/**
 * Follows a job's SSE stream until its final event, reconnecting with `Last-Event-ID` when
 * the stream drops, so no event is missed or repeated.
 *
 * @throws PlexusError `NOT_FOUND` for an unknown job; `PEER_UNAVAILABLE` when the stream
 *   cannot be (re)opened; `CANCELLED` when `signal` aborts.
 */
export async function* followJobEvents(
  target: NodeTarget,
  jobId: string,
  options: FollowOptions = {},
): AsyncGenerator<SseEvent> {
  let lastId = options.lastEventId;
  let reconnects = 0;
  const max = options.maxReconnects ?? 5;
  for (;;) {
    if (isAborted(options.signal)) throw new PlexusError('CANCELLED', 'stopped following the job');
    let response: Response;
    try {
      response = await fetch(`${target.url}/v1/jobs/${encodeURIComponent(jobId)}/events`, {
        headers: {
          accept: 'text/event-stream',
          ...authHeaders(target),
          ...(lastId === undefined ? {} : { 'last-event-id': lastId }),
        },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (cause) {
      if (isAborted(options.signal))
        throw new PlexusError('CANCELLED', 'stopped following the job', { cause });
      if (reconnects++ >= max) {
        throw new PlexusError(
          'PEER_UNAVAILABLE',
          `lost the event stream of job ${jobId} and could not reopen it`,
          { cause },
        );
      }
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    if (response.status !== 200 || response.body === null) {
      const text = await response.text().catch(() => '');
      let message = text.slice(0, 200);
      try {
        const body = JSON.parse(text) as JsonObject;
        const error = isJsonObject(body['error']) ? body['error'] : body;
        if (typeof error['message'] === 'string') message = error['message'];
      } catch {
        // keep the text
      }
      throw new PlexusError(
        response.status === 404 ? 'NOT_FOUND' : 'UNAVAILABLE',
        `events of job ${jobId}: ${response.status}: ${message}`,
      );
    }
    let ended = false;
    try {
      for await (const event of readSse(response.body, options.signal)) {
        if (event.id !== undefined) lastId = event.id;
        yield event;
        if (TERMINAL_EVENTS.has(event.event)) {
          ended = true;
          return;
        }
      }
    } catch (cause) {
      if (isAborted(options.signal))
        throw new PlexusError('CANCELLED', 'stopped following the job', { cause });
      // the stream broke: reconnect below
    } finally {
      if (!ended) await response.body.cancel().catch(() => undefined);
    }
    if (reconnects++ >= max) {
      throw new PlexusError(
        'PEER_UNAVAILABLE',
        `the event stream of job ${jobId} kept ending before the job did`,
      );
    }
  }
}
