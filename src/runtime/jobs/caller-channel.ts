/**
 * A live channel from a running job back to the caller that submitted it (docs/decisions/mcp.md
 * MCP-51): a face whose caller can do work for the handler — an MCP client that declared the
 * `sampling` capability answers `sampling/createMessage` — hands one to the runtime in the
 * invocation context. It lives in memory only, beside the job, and is never recorded: a job
 * recovered after a restart, re-run by another node or called over a face without one has no
 * channel, and `ctx.sample` fails with `PRECONDITION_FAILED` saying why.
 */
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';

/**
 * What a handler asks the caller's model (`ctx.sample`): the MCP `sampling/createMessage`
 * params — `messages` (`{role: 'user' | 'assistant', content: {type: 'text', text} | …}`),
 * `maxTokens`, and optionally `systemPrompt`, `temperature`, `stopSequences`,
 * `modelPreferences`, `metadata`, `includeContext`. The face checks the whole shape.
 */
export interface SampleRequest extends JsonObject {
  readonly messages: JsonObject[];
  readonly maxTokens: number;
}

/**
 * The caller's answer: the MCP `CreateMessageResult` — `role`, `content` (`{type: 'text',
 * text}` or another content block), `model` (the model that answered) and `stopReason`.
 */
export interface SampleResult extends JsonObject {
  readonly role: string;
  readonly content: JsonObject | JsonObject[];
  readonly model: string;
}

/** Options of one request through a {@link CallerChannel}. */
export interface CallerRequestOptions {
  /** The job's signal: cancellation, deadline, node stop. */
  readonly signal: AbortSignal;
  /** The job's deadline, Unix ms. */
  readonly deadline: number;
}

/** What a face can do for a handler through its caller; every member is optional. */
export interface CallerChannel {
  /**
   * Asks the caller's model for a message (MCP `sampling/createMessage`).
   * @throws PlexusError `INVALID_PARAMS` for a request of the wrong shape; others as the
   *   face maps the caller's failure.
   */
  readonly sample?: (request: SampleRequest, options: CallerRequestOptions) => Promise<SampleResult>;
  /**
   * Told of each progress report of the job (`ctx.progress`), in order, once its
   * `job.progress` event is committed — in memory, so a face that relays progress to its
   * caller (MCP `notifications/progress`) need not follow the log (RT-056). Reports of every
   * run of the job (after a pause for input too) reach it while the engine holds the job; it
   * is dropped with the job. A report whose event the log refused is not told; a listener
   * that throws is logged, never felt by the handler.
   */
  readonly progress?: (data: JsonValue) => void;
}

/** Most tokens a sample may ask for. */
const MAX_TOKENS_LIMIT = 1_000_000;

/**
 * The `ctx.sample` of a job with `channel` (or none).
 * @throws PlexusError `PRECONDITION_FAILED` without a sampling channel; `INVALID_PARAMS` for a
 *   request that is not an object with a non-empty `messages` array and a whole `maxTokens`
 *   in 1…1,000,000.
 */
export function sampler(
  channel: CallerChannel | undefined,
  jobId: string,
  options: () => CallerRequestOptions,
): (request: SampleRequest) => Promise<SampleResult> {
  return async (request) => {
    const sample = channel?.sample;
    if (sample === undefined) {
      throw new PlexusError(
        'PRECONDITION_FAILED',
        `ctx.sample needs a caller that can sample — an MCP client that declared the sampling capability, calling this node's /mcp while the job runs; job ${jobId} has none (called over another face, by a client without that capability, or recovered after a restart)`,
        { details: { job: jobId } },
      );
    }
    if (
      !isJsonObject(request) ||
      !Array.isArray(request['messages']) ||
      request['messages'].length === 0 ||
      !Number.isSafeInteger(request['maxTokens']) ||
      request['maxTokens'] < 1 ||
      request['maxTokens'] > MAX_TOKENS_LIMIT
    ) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `ctx.sample needs {messages: [...] (at least one), maxTokens: 1…${MAX_TOKENS_LIMIT}}`,
      );
    }
    return sample(request, options());
  };
}
