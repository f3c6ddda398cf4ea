/**
 * A POST's reply stream resumed after a restart (issue 13 item 1; docs/decisions/mcp.md
 * MCP-57). `GET /mcp` with a `Last-Event-ID` naming a POST stream this process never had is
 * looked up in the log: its recorded `tools/call`s (`stream-records.ts`) name their jobs by
 * idempotency key (the log's index of `job.submitted` by key), and the runtime's crash recovery
 * has re-run or failed each job. The stream is opened again under the same key and fed from
 * the log: each job's progress of its current attempt (after its latest `job.retried`; all of
 * it for a job that had not started) as `notifications/progress` on the call's token, then its
 * answer as the call's result, under the call's JSON-RPC id. Progress of the attempt the
 * restart cut is not sent again (the client may have had it; the re-run reports afresh); a
 * job that waits for input is
 * answered as MCP-50's "not asked"; a call whose job never reached the log is answered
 * `UNAVAILABLE` (call again).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isTerminalJobState } from '../../core/records/job.js';
import { isJsonObject } from '../../core/json.js';
import type { Runtime } from '../../runtime/index.js';
import type { EventLog } from '../../store/event-log.js';
import { errorOfAnswer } from '../answer-error.js';
import { waitingFailure } from './job-questions.js';
import type { McpSession } from './mcp-sessions.js';
import type { SessionRecords } from './session-records.js';
import type { ReplayStream } from './sse-replay.js';
import type { StreamedCall } from './stream-records.js';
import { catalogOf } from './tool-catalog.js';
import { progressParams, toolFailure, toolSuccess } from './tool-call.js';

/** What recovering a stream needs. */
export interface StreamRecoveryInit {
  readonly runtime: Runtime;
  readonly log: EventLog;
  readonly records: SessionRecords;
  /** Aborted when the face stops. */
  readonly signal: AbortSignal;
}

/** A recovered stream: attach a connection to `stream`, then `run()` feeds it. */
export interface RecoveredStream {
  readonly stream: ReplayStream;
  run(): void;
}

/** Recovers stream `key` of `session` from the log, or `undefined` when it has no recorded call. */
export type StreamRecovery = (session: McpSession, key: string) => Promise<RecoveredStream | undefined>;

/** The job whose `job.submitted` carries the scoped idempotency key of `call`. */
async function jobOf(
  init: StreamRecoveryInit,
  tenant: string | undefined,
  call: StreamedCall,
): Promise<string | undefined> {
  const [submitted] = await init.log.read({
    type: 'job.submitted',
    key: `${tenant ?? ''}|${call.key}`,
    limit: 1,
    signal: init.signal,
  });
  return submitted?.causation;
}

function answerOf(call: StreamedCall, result: ReturnType<typeof toolFailure>): JSONRPCMessage {
  return { jsonrpc: '2.0', id: call.id, result };
}

/**
 * Where the progress of job `jobId`'s current attempt starts: its latest `job.retried`; for a
 * job that started before the restart and was not started again yet, its latest event (the
 * coming `job.retried` and what follows); for a job that never started, its beginning.
 */
async function attemptStart(runtime: Runtime, jobId: string, signal: AbortSignal): Promise<number> {
  const events = await runtime.jobs.events(jobId, { signal, limit: 10_000 });
  let started = false;
  let retried: number | undefined;
  for (const event of events) {
    if (event.type === 'job.retried') retried = event.seq;
    if (event.type === 'job.started') started = true;
  }
  if (retried !== undefined) return retried;
  return started ? (events.at(-1)?.seq ?? 0) : 0;
}

/** Follows one call's job and writes its progress and result to `stream`. */
async function feedCall(
  init: StreamRecoveryInit,
  session: McpSession,
  stream: ReplayStream,
  call: StreamedCall,
): Promise<void> {
  const { runtime, signal } = init;
  const entry = catalogOf(runtime.agents.registry).byName(call.tool);
  const agent = entry?.agentId ?? 'none';
  try {
    const jobId = await jobOf(init, session.tenant, call);
    if (jobId === undefined) {
      const error = new PlexusError(
        'UNAVAILABLE',
        'the node restarted before this call reached the event log: call the tool again',
        { retryable: true },
      );
      stream.write(answerOf(call, toolFailure(error, agent)));
      return;
    }
    let job = await runtime.jobs.get(jobId, { signal });
    // a finished job's progress of its last attempt is read back too (stored events, then live)
    if (job.state !== 'INPUT_REQUIRED') {
      let count = 0;
      const afterSeq = await attemptStart(runtime, jobId, signal);
      for await (const event of runtime.jobs.watch(jobId, { afterSeq, signal })) {
        if (event.type === 'job.input_required') break;
        if (event.type === 'job.progress' && call.token !== undefined) {
          const data = isJsonObject(event.data) ? event.data['progress'] : undefined;
          stream.write({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: call.token, ...progressParams(data, ++count) },
          });
        }
        if (event.terminal) break;
      }
      if (!isTerminalJobState(job.state)) job = await runtime.jobs.get(jobId, { signal });
    }
    if (job.state === 'INPUT_REQUIRED') {
      const error = waitingFailure(
        jobId,
        job.verb,
        job.input?.prompt ?? '',
        'the node restarted while the call ran',
      );
      stream.write(answerOf(call, toolFailure(error, agent)));
      return;
    }
    const answer = await runtime.jobs.answer(jobId, { signal });
    const result =
      answer.kind === 'error'
        ? toolFailure(errorOfAnswer(answer), answer.from || agent)
        : entry === undefined
          ? { content: [{ type: 'text' as const, text: JSON.stringify(answer.data) }] }
          : toolSuccess(entry, answer.data);
    stream.write(answerOf(call, result));
  } catch (error) {
    if (signal.aborted) return;
    stream.write(answerOf(call, toolFailure(toPlexusError(error), agent)));
  }
}

/** The recovery of streams of a previous process (MCP-57). */
export function streamRecovery(init: StreamRecoveryInit): StreamRecovery {
  const recovering = new Set<string>();
  return async (session, key) => {
    const calls = await init.records.calls(session.hash, key, init.signal);
    const id = `${session.id}\n${key}`;
    if (calls.length === 0 || recovering.has(id)) return undefined;
    recovering.add(id);
    const stream = session.replay.open(calls.length, key);
    return {
      stream,
      run() {
        void Promise.all(calls.map((call) => feedCall(init, session, stream, call))).finally(() =>
          recovering.delete(id),
        );
      },
    };
  };
}
