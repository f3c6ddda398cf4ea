/**
 * What a session's GET stream missed across a restart, told again from the log (issue 13 item 1;
 * docs/decisions/mcp.md MCP-63). The GET stream of a previous process is not kept (MCP-57), but
 * most of what it carries is derived from log events: the list changes from the agent events
 * (`agent.registered`, `agent.updated`, `agent.removed`), `resources/updated` of a subscribed
 * agent card from that agent's events and of a subscribed job from the job's events. When a
 * client reconnects with the `Last-Event-ID` of a previous process's GET stream, the log after
 * the session's last use it knew is read (bounded) and each kind of change is told once on the
 * new stream: these notifications say "read again", so one of each stands for all of them.
 */
import { isJsonObject } from '../../core/json.js';
import { RUNTIME_EVENTS } from '../../runtime/index.js';
import type { EventLog } from '../../store/event-log.js';
import { agentUri, jobIdOfUri } from './mcp-resources.js';
import { subscriptionsOfServer } from './mcp-server.js';
import type { McpSession } from './mcp-sessions.js';

/** The agent events a session's lists follow. */
export const AGENT_CHANGE_EVENTS: readonly string[] = [
  RUNTIME_EVENTS.agentRegistered,
  RUNTIME_EVENTS.agentUpdated,
  RUNTIME_EVENTS.agentRemoved,
];

/**
 * Agent events read at most after a session's last use; beyond them every subscribed agent card
 * is told updated (MCP-63).
 */
export const MISSED_AGENT_EVENTS = 1000;

/** The agent id an agent event is about. */
function agentOf(data: unknown): string | undefined {
  if (!isJsonObject(data)) return undefined;
  const card = isJsonObject(data['card']) ? data['card'] : {};
  const id = data['id'] ?? card['id'];
  return typeof id === 'string' ? id : undefined;
}

/**
 * Tells `session` (on its GET stream) what changed in the log after its last known use
 * (`session.seenSeq`): the tool, resource and prompt lists when any agent changed; each subscribed
 * agent card whose agent changed, and each subscribed job that has events since, as
 * `resources/updated`. Nothing for a session of this process; never throws.
 */
export async function announceMissed(log: EventLog, session: McpSession, signal: AbortSignal): Promise<void> {
  const since = session.seenSeq;
  if (since === undefined) return;
  try {
    const agentEvents = await log.read({
      type: AGENT_CHANGE_EVENTS,
      afterSeq: since,
      limit: MISSED_AGENT_EVENTS + 1,
      signal,
    });
    const server = session.server;
    if (agentEvents.length > 0) {
      await server.sendToolListChanged().catch(() => undefined);
      await server.sendResourceListChanged().catch(() => undefined);
      await server.sendPromptListChanged().catch(() => undefined);
    }
    const subscriptions = subscriptionsOfServer(server);
    if (subscriptions === undefined) return;
    const all = agentEvents.length > MISSED_AGENT_EVENTS;
    const changed = new Set(agentEvents.flatMap((e) => agentOf(e.data) ?? []));
    for (const uri of session.subscriptions) {
      const jobId = jobIdOfUri(uri);
      if (jobId === undefined) {
        if (
          uri.startsWith(agentUri('')) &&
          (all || changed.has(decodeURIComponent(uri.slice(agentUri('').length))))
        )
          subscriptions.touch(uri);
        continue;
      }
      // a job's events have the job's id as causation (one index probe each)
      const [event] = await log.read({ causation: jobId, afterSeq: since, limit: 1, signal });
      if (event !== undefined) subscriptions.touch(uri);
    }
  } catch {
    // the face stopped or the log could not be read: the client reads again when it needs to
  }
}
