/**
 * MCP servers added at run time with `bridge.registerMCPServer` (issue 13 item 8, seed 003
 * §10.1; docs/decisions/mcp.md MCP-36), kept in the event log (`mcp.bridge.server_registered`,
 * node-wide, not tenant-scoped) and read back when the bridge starts: a registered server is
 * bridged again after a restart. A later registration of a name replaces the earlier one.
 */
import type { JsonObject } from '../../core/json.js';
import type { EventLog, SignalOptions } from '../../store/event-log.js';
import { parseMcpServerEntry, type McpServerEntry } from './mcp-server-entry.js';

declare module '../../store/event-map.js' {
  interface EventMap {
    /** An MCP server was registered with the bridge at run time (the entry, as given). */
    'mcp.bridge.server_registered': JsonObject;
  }
}

/** The event type of a registration. */
export const MCP_SERVER_REGISTERED = 'mcp.bridge.server_registered';
/** Events read per page while loading. */
const PAGE = 1000;

/**
 * The registrations in the log, the latest per name, in the order first registered. An event
 * whose entry no longer parses is skipped and reported through `skipped`.
 */
export async function loadRegistrations(
  log: EventLog,
  skipped: (seq: number, error: unknown) => void,
  options: SignalOptions = {},
): Promise<McpServerEntry[]> {
  const byName = new Map<string, McpServerEntry>();
  let afterSeq = 0;
  for (;;) {
    const events = await log.read({ type: [MCP_SERVER_REGISTERED], afterSeq, limit: PAGE, ...options });
    for (const event of events) {
      try {
        const given: JsonObject = { ...(event.data as JsonObject) };
        delete given['registeredBy'];
        const entry = parseMcpServerEntry(given);
        byName.set(entry.name, entry);
      } catch (error) {
        skipped(event.seq, error);
      }
    }
    const last = events.at(-1);
    if (last === undefined || events.length < PAGE) return [...byName.values()];
    afterSeq = last.seq;
  }
}

/** Records a registration (`by`: the principal that made it, for the audit trail). */
export async function recordRegistration(
  log: EventLog,
  entry: McpServerEntry,
  by: string,
  options: SignalOptions = {},
): Promise<void> {
  await log.append(
    { type: MCP_SERVER_REGISTERED, data: { ...(entry as unknown as JsonObject), registeredBy: by } },
    options,
  );
}
