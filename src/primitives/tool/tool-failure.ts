/**
 * How a failing tool call reads to the caller of `tool.invoke`: the implementation's error,
 * kept with its code, re-worded to name the tool; a verb nobody offers (or a node that cannot
 * take the call) becomes `PEER_UNAVAILABLE` (Hyperspace −32006, "target peer not reachable").
 */
import { PlexusError, toPlexusError, type PlexusErrorCode } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';

/** The codes that mean "nobody could run it" rather than "it ran and failed". */
const UNREACHABLE: ReadonlySet<PlexusErrorCode> = new Set([
  'UNKNOWN_VERB',
  'UNAVAILABLE',
  'PEER_UNAVAILABLE',
]);

/** The tool a failure belongs to. */
export interface FailedTool {
  readonly toolId: string;
  readonly name: string;
  readonly verb: string;
  /** The agent the tool is bound to, if any. */
  readonly agent?: string;
}

/**
 * The error `tool.invoke` throws for a failed call: same code and `retryable` as the
 * implementation's error (`UNKNOWN_VERB` / `UNAVAILABLE`, or the tool's bound agent not found →
 * `PEER_UNAVAILABLE`), a message
 * naming the tool, and the implementation's details plus `toolId`, `verb` and `cause` (its code).
 */
export function toolFailure(tool: FailedTool, thrown: unknown): PlexusError {
  const error = toPlexusError(thrown);
  const agentGone =
    error.code === 'NOT_FOUND' && tool.agent !== undefined && error.details?.['agent'] === tool.agent;
  const unreachable = UNREACHABLE.has(error.code) || agentGone;
  const code: PlexusErrorCode = unreachable ? 'PEER_UNAVAILABLE' : error.code;
  const details: JsonObject = {
    ...(error.details ?? {}),
    toolId: tool.toolId,
    verb: tool.verb,
    cause: error.code,
  };
  const what = `tool "${tool.name}" (${tool.toolId}, verb ${tool.verb})`;
  const message = unreachable
    ? `${what} is not reachable: ${error.message}`
    : `${what} failed: ${error.message}`;
  return new PlexusError(code, message, {
    cause: thrown,
    details,
    retryable: unreachable ? true : error.retryable,
  });
}
