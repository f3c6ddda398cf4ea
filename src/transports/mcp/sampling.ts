/**
 * `ctx.sample` over the MCP face (docs/decisions/mcp.md MCP-51): a tool call from a client that
 * declared the `sampling` capability lends its job a {@link CallerChannel} whose `sample` sends
 * `sampling/createMessage` on the call's stream. The request is checked with the SDK's schema
 * first (`INVALID_PARAMS` naming the problem); the client's JSON-RPC error is `UNAVAILABLE`
 * (not retryable: the client or its user said no), its silence until the job's deadline
 * `TIMEOUT`, a request that cannot reach it `UNAVAILABLE` (retryable).
 */
import {
  CreateMessageRequestParamsSchema,
  ErrorCode,
  McpError,
  type CreateMessageRequestParams,
  type CreateMessageResult,
} from '@modelcontextprotocol/sdk/types.js';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { CallerChannel, SampleResult } from '../../runtime/index.js';

/** Sends one `sampling/createMessage` to the client (the session server's `createMessage`). */
export type CreateMessage = (
  params: CreateMessageRequestParams,
  options: { readonly signal: AbortSignal; readonly timeout: number },
) => Promise<CreateMessageResult>;

/** Shortest wait for a sample, ms, whatever the deadline says (the deadline aborts anyway). */
const MIN_SAMPLE_TIMEOUT_MS = 1_000;

function detail(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/** The channel of one tool call whose client can sample. */
export function samplingChannel(createMessage: CreateMessage): CallerChannel {
  return {
    async sample(request, { signal, deadline }): Promise<SampleResult> {
      const parsed = CreateMessageRequestParamsSchema.safeParse(request);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
        throw new PlexusError(
          'INVALID_PARAMS',
          `ctx.sample: not an MCP sampling/createMessage request${where}: ${issue?.message ?? 'invalid'}`,
        );
      }
      try {
        const result = await createMessage(parsed.data, {
          signal,
          timeout: Math.max(MIN_SAMPLE_TIMEOUT_MS, deadline - Date.now()),
        });
        return result as unknown as SampleResult & JsonObject;
      } catch (error) {
        signal.throwIfAborted();
        if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
          throw new PlexusError('TIMEOUT', `the MCP client did not answer sampling/createMessage in time`);
        }
        if (error instanceof McpError) {
          throw new PlexusError(
            'UNAVAILABLE',
            `the MCP client answered sampling/createMessage with an error: ${detail(error)}`,
            { retryable: false, details: { mcpCode: error.code } },
          );
        }
        throw new PlexusError('UNAVAILABLE', `could not ask the MCP client to sample: ${detail(error)}`);
      }
    },
  };
}
