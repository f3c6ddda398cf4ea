/**
 * Asking the MCP client a tool call's job's questions (docs/decisions/mcp.md MCP-50): when the
 * job pauses on `ctx.requestInput` (RT-055) and the client declared `elicitation`, the face
 * sends `elicitation/create` on the call's stream; `accept` answers the job
 * (`runtime.jobs.provideInput`, recorded as `job.input_provided` with the session's
 * principal), `decline` and `cancel` cancel it (the call's result is `CANCELLED` naming the
 * action). A question the face cannot ask — the client lacks the capability, the schema is
 * not a form, the client does not answer — leaves the job waiting, and the call answers
 * `CONFLICT` saying so, as a call without elicitation always has.
 */
import {
  ErrorCode,
  McpError,
  type ElicitRequestFormParams,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { JobInputRequest } from '../../core/records/job.js';
import type { Principal, Runtime } from '../../runtime/index.js';
import { answerOf, elicitationOf } from './elicitation.js';

/** Most questions one `tools/call` asks its client; past them the job is left waiting. */
export const MAX_QUESTIONS_PER_CALL = 64;

/** Who is asked, and how. */
export interface QuestionAsker {
  readonly principal: Principal;
  /** Aborted when the client cancels the call or the session ends. */
  readonly signal: AbortSignal;
  /** Sends `elicitation/create` to the client; absent when it did not declare `elicitation`. */
  readonly elicit?: (params: ElicitRequestFormParams, signal: AbortSignal) => Promise<ElicitResult>;
}

/** Whether the question was put to the client (then the job goes on or ends), or why not. */
export type AskOutcome = { readonly asked: true } | { readonly asked: false; readonly reason: string };

/** The failure of a call whose job waits for an answer the face could not get. */
export function waitingFailure(jobId: string, verb: string, prompt: string, reason: string): PlexusError {
  return new PlexusError(
    'CONFLICT',
    `job ${jobId} (${verb}) waits for input: ${prompt}; it was not asked because ${reason}; answer it with runtime.jobs.provideInput or an A2A message naming the task ${jobId}`,
    { details: { job: jobId, state: 'INPUT_REQUIRED' } },
  );
}

function detail(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}

async function cancelJob(runtime: Runtime, jobId: string, reason: string): Promise<void> {
  await runtime.jobs.cancel(jobId, { reason }).catch(() => undefined);
}

/**
 * Puts job `jobId`'s question `request` to the client.
 * @throws PlexusError `INVALID_PARAMS` when the accepted content does not match the question's
 *   schema (the job is cancelled); the abort error when the call is cancelled.
 */
export async function askCaller(
  runtime: Runtime,
  jobId: string,
  request: JobInputRequest,
  asker: QuestionAsker,
): Promise<AskOutcome> {
  if (asker.elicit === undefined)
    return { asked: false, reason: 'the MCP client did not declare the elicitation capability' };
  const elicitation = elicitationOf(request);
  if (elicitation === undefined) {
    return {
      asked: false,
      reason:
        'its schema is not one an MCP elicitation form can ask (a flat object of strings, numbers, booleans and enums, or one such value)',
    };
  }
  const { signal } = asker;
  let result: ElicitResult;
  try {
    result = await asker.elicit(elicitation.params, signal);
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof McpError && error.code === (ErrorCode.InvalidParams as number)) {
      // the SDK checks accepted content against the requested schema
      await cancelJob(runtime, jobId, 'the MCP client answered content that does not match the question');
      throw new PlexusError(
        'INVALID_PARAMS',
        `the MCP client's answer to "${request.prompt}" does not match the question's schema: ${detail(error)}`,
        { details: { job: jobId } },
      );
    }
    return { asked: false, reason: `the MCP client did not answer elicitation/create (${detail(error)})` };
  }
  if (result.action !== 'accept') {
    const did = result.action === 'decline' ? 'declined' : 'cancelled';
    await cancelJob(runtime, jobId, `the MCP client ${did} the input request "${request.prompt}"`);
    return { asked: true };
  }
  try {
    await runtime.jobs.provideInput(jobId, answerOf(elicitation, result), {
      principal: asker.principal.id,
      signal,
    });
  } catch (error) {
    const refused = toPlexusError(error);
    // no longer waiting (cancelled or answered elsewhere meanwhile): its end follows
    if (refused.code === 'CONFLICT') return { asked: true };
    await cancelJob(runtime, jobId, `the MCP client's answer was refused: ${refused.message}`);
    throw refused;
  }
  return { asked: true };
}
