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
 * `UNAVAILABLE` (call again). Each answer is recorded as the call's `mcp.invocation` before it
 * is sent, unless the call has its record already (MCP-62).
 */
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isTerminalJobState } from '../../core/records/job.js';
import { isJsonObject } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import type { Runtime } from '../../runtime/index.js';
import type { EventLog } from '../../store/event-log.js';
import { errorOfAnswer } from '../answer-error.js';
import { waitingFailure } from './job-questions.js';
import type { McpSession } from './mcp-sessions.js';
import type { SessionRecords } from './session-records.js';
import type { ReplayStream } from './sse-replay.js';
import { callCausation, callRecorded, type StreamedCall } from './stream-records.js';
import { toolCallStatus, type ToolCallDone } from './mcp-server.js';
import { catalogOf } from './tool-catalog.js';
import { progressParams, toolFailure, toolSuccess } from './tool-call.js';

/** What recovering a stream needs. */
export interface StreamRecoveryInit {
  readonly runtime: Runtime;
  readonly log: EventLog;
  readonly records: SessionRecords;
  /** Aborted when the face stops. */
  readonly signal: AbortSignal;
  /**
   * Records a call answered here (its invocation record, log line and meters) under
   * `causation` (MCP-62). @default nothing is recorded
   */
  readonly record?: (
    principal: { readonly id: string; readonly tenantId?: string },
    call: ToolCallDone,
    causation: string,
  ) => Promise<void>;
}

/** A recovered stream: attach a connection to `stream`, then `run()` feeds it. */
export interface RecoveredStream {
  readonly stream: ReplayStream;
  run(): void;
}

/** Recovers stream `key` of `session` from the log, or `undefined` when it has no recorded call. */
export type StreamRecovery = (session: McpSession, key: string) => Promise<RecoveredStream | undefined>;

/** The `job.submitted` event carrying the scoped idempotency key of `call`. */
async function submittedOf(
  init: StreamRecoveryInit,
  tenant: string | undefined,
  call: StreamedCall,
): Promise<Event | undefined> {
  const [submitted] = await init.log.read({
    type: 'job.submitted',
    key: `${tenant ?? ''}|${call.key}`,
    limit: 1,
    signal: init.signal,
  });
  return submitted;
}

function answerOf(call: StreamedCall, result: CallToolResult): JSONRPCMessage {
  return { jsonrpc: '2.0', id: call.id, result };
}

/** What a recovered call's record tells (MCP-62): who called, with what, since when. */
interface CallFacts {
  readonly principal: string;
  readonly verb: string;
  readonly arguments?: Record<string, unknown>;
  /** When the call was accepted, Unix ms. */
  readonly startedAt: number;
  /** When its job finished, Unix ms. */
  finishedAt?: number;
}

/** The facts of the call the `job.submitted` event `submitted` began (none known: the session's). */
function factsOf(session: McpSession, submitted: Event | undefined, fallbackVerb: string): CallFacts {
  const data: Record<string, unknown> = isJsonObject(submitted?.data) ? submitted.data : {};
  const request = data['request'];
  const input = isJsonObject(request) ? request['data'] : undefined; // the verb's input
  const at = Date.parse(typeof data['at'] === 'string' ? data['at'] : (submitted?.time ?? ''));
  const principal = data['principal'];
  const verb = data['verb'];
  return {
    // the session's opener when the job says nothing (the session is bound to it, MCP-56)
    principal:
      typeof principal === 'string' && principal !== ''
        ? principal
        : session.owner.slice(0, session.owner.lastIndexOf('\n')),
    verb: typeof verb === 'string' && verb !== '' ? verb : fallbackVerb,
    ...(isJsonObject(input) ? { arguments: input } : {}),
    startedAt: Number.isFinite(at) ? at : Date.now(),
  };
}

/**
 * Sends `result` as the answer of `call`, recorded first (awaited, as a live call's record is)
 * unless the call has its record already: a stream resumed again, or a call recorded by the
 * previous process just before it stopped (MCP-62).
 */
async function deliver(
  init: StreamRecoveryInit,
  session: McpSession,
  stream: ReplayStream,
  call: StreamedCall,
  agent: string,
  facts: CallFacts,
  result: CallToolResult,
): Promise<void> {
  try {
    if (init.record !== undefined && !(await callRecorded(init.log, call.key, init.signal)))
      await record(init.record, session, call, agent, facts, result);
  } catch {
    // a record that cannot be read or written does not keep the answer from the client
  }
  stream.write(answerOf(call, result));
}

function record(
  recorder: NonNullable<StreamRecoveryInit['record']>,
  session: McpSession,
  call: StreamedCall,
  agent: string,
  facts: CallFacts,
  result: CallToolResult,
): Promise<void> {
  const finished = facts.finishedAt ?? Date.now();
  const client = session.server.getClientVersion()?.name;
  return recorder(
    { id: facts.principal, ...(session.tenant === undefined ? {} : { tenantId: session.tenant }) },
    {
      tool: call.tool,
      agent,
      verb: facts.verb,
      arguments: facts.arguments,
      result,
      status: toolCallStatus(result),
      seconds: Math.max(0, finished - facts.startedAt) / 1000,
      startedAt: facts.startedAt,
      key: call.key,
      ...(client === undefined ? {} : { client }),
    },
    callCausation(call.key),
  );
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
  let facts = factsOf(session, undefined, entry?.verb ?? 'none');
  try {
    const submitted = await submittedOf(init, session.tenant, call);
    facts = factsOf(session, submitted, entry?.verb ?? 'none');
    const jobId = submitted?.causation;
    if (jobId === undefined) {
      const error = new PlexusError(
        'UNAVAILABLE',
        'the node restarted before this call reached the event log: call the tool again',
        { retryable: true },
      );
      await deliver(init, session, stream, call, agent, facts, toolFailure(error, agent));
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
      await deliver(init, session, stream, call, agent, facts, toolFailure(error, agent));
      return;
    }
    const answer = await runtime.jobs.answer(jobId, { signal });
    const finishedAt = Date.parse(job.timing.finishedAt ?? '');
    if (Number.isFinite(finishedAt)) facts.finishedAt = finishedAt;
    const result =
      answer.kind === 'error'
        ? toolFailure(errorOfAnswer(answer), answer.from || agent)
        : entry === undefined
          ? { content: [{ type: 'text' as const, text: JSON.stringify(answer.data) }] }
          : toolSuccess(entry, answer.data);
    await deliver(
      init,
      session,
      stream,
      call,
      answer.kind === 'error' ? answer.from || agent : agent,
      facts,
      result,
    );
  } catch (error) {
    if (signal.aborted) return;
    const result = toolFailure(toPlexusError(error), agent);
    await deliver(init, session, stream, call, agent, facts, result);
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
