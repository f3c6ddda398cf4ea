/**
 * What the MCP face does with each finished tool call (issue 13 item 7, seed 004 Req 12.2,
 * 13.4; docs/decisions/mcp.md MCP-16): appends its invocation record to the event log
 * (awaited: the result is sent once the record is durable, so `GET /v1/stats/mcp` read after a
 * call counts it), logs one structured line (`event: mcp.tool_call`, tool, source agent,
 * duration, success) and feeds the node's meters when it keeps them.
 */
import type { Logger } from '../../core/logger.js';
import type { Principal } from '../../runtime/index.js';
import type { FaceComponents } from '../face.js';
import { silentLogger } from '../face-components.js';
import { MCP_INVOCATION_EVENT, invocationRecordData, recordedValue } from './invocation-record.js';
import type { ToolCallDone } from './mcp-server.js';

/** The `event` field of the structured log line of a tool call. */
export const TOOL_CALL_LOG_EVENT = 'mcp.tool_call';

/**
 * The recorder of the calls of one caller (`principal`); `causation`, when given, is the
 * record's (a streamed call's `mcp-call:<key>`, so it is recorded once, MCP-62).
 */
export function callRecorder(
  components: FaceComponents,
  principal: Pick<Principal, 'id' | 'tenantId'>,
): (call: ToolCallDone, causation?: string) => Promise<void> {
  const logger: Logger = components.logger ?? silentLogger;
  return async (call, causation) => {
    components.metrics?.mcpToolCall(call.tool, call.status, call.seconds);
    const durationMs = call.seconds * 1000;
    const success = call.status === 'success';
    logger.info(
      {
        event: TOOL_CALL_LOG_EVENT,
        tool: call.tool,
        source_agent: call.client ?? null, // seed 004 Req 12.2: the calling client
        principal: principal.id,
        agent: call.agent,
        duration_ms: Math.round(durationMs * 1000) / 1000,
        success,
        status: call.status,
      },
      `mcp tool call ${call.tool}: ${call.status}`,
    );
    const data = invocationRecordData({
      tool: call.tool,
      agent: call.agent,
      verb: call.verb,
      principal: principal.id,
      arguments: recordedValue(call.arguments ?? {}),
      result: recordedValue(call.result),
      durationMs,
      outcome: call.status,
      at: new Date(call.startedAt).toISOString(),
    });
    try {
      await components.log.append({
        type: MCP_INVOCATION_EVENT,
        data,
        ...(principal.tenantId === undefined ? {} : { tenant: principal.tenantId }),
        ...(causation === undefined ? {} : { causation }),
      });
    } catch (error) {
      // the call ran and its result stands; a record the log refused is reported, not thrown
      logger.warn(
        { event: 'mcp.record_failed', tool: call.tool, error: String(error) },
        'mcp: an invocation record could not be written',
      );
    }
  };
}
