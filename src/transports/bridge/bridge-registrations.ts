/**
 * Bridge entries added at run time (seed 003 §10.1 `bridge.registerMCPServer`, §10.2
 * `bridge.announceA2AAgent`; docs/decisions/mcp.md MCP-36, a2a.md A2A-19), kept in the event log
 * as one event type per bridge (node-wide, not tenant-scoped) and read back when the bridge
 * starts, so an entry added at run time is bridged again after a restart. A later entry of a
 * name replaces the earlier one; a removal event of a name (A2A-22) drops it.
 */
import type { JsonObject } from '../../core/json.js';
import type { EventLog, SignalOptions } from '../../store/event-log.js';
import type { EventMap } from '../../store/event-map.js';

/** The field of a recorded entry naming the principal that added it (the audit trail). */
export const REGISTERED_BY = 'registeredBy';
/** The field of a removal naming the principal that removed the entry. */
export const REMOVED_BY = 'removedBy';
/** Events read per page while loading. */
const PAGE = 1000;

/** An event type whose data is a recorded entry. */
export type RegistrationEventType = {
  [K in keyof EventMap]: EventMap[K] extends JsonObject ? K : never;
}[keyof EventMap];

/** How one bridge keeps its entries. */
export interface RegistrationKind<T extends { readonly name: string }> {
  /** The event type of one entry. */
  readonly type: RegistrationEventType;
  /** Checks a stored entry (as given at run time, without {@link REGISTERED_BY}). */
  readonly parse: (value: JsonObject) => T;
  /** The event type that removes the entry its `name` names, if entries can be removed. */
  readonly removedType?: RegistrationEventType;
}

/**
 * The entries in the log, the latest per name, in the order first added (one removed and added
 * again counts from its new addition). An event whose entry no longer parses is skipped and
 * reported through `skipped`.
 */
export async function loadRegistrations<T extends { readonly name: string }>(
  log: EventLog,
  kind: RegistrationKind<T>,
  skipped: (seq: number, error: unknown) => void,
  options: SignalOptions = {},
): Promise<T[]> {
  const byName = new Map<string, T>();
  let afterSeq = 0;
  for (;;) {
    const types = kind.removedType === undefined ? [kind.type] : [kind.type, kind.removedType];
    const events = await log.read({ type: types, afterSeq, limit: PAGE, ...options });
    for (const event of events) {
      if (event.type === kind.removedType) {
        const name = (event.data as JsonObject)['name'];
        if (typeof name === 'string') byName.delete(name);
        else skipped(event.seq, new Error('a removal event without a name'));
        continue;
      }
      try {
        const given = Object.fromEntries(
          Object.entries(event.data as JsonObject).filter(([key]) => key !== REGISTERED_BY),
        );
        const entry = kind.parse(given);
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

/** Records an entry (`by`: the principal that added it, for the audit trail). */
export async function recordRegistration<T extends { readonly name: string }>(
  log: EventLog,
  kind: RegistrationKind<T>,
  entry: T,
  by: string,
  options: SignalOptions = {},
): Promise<void> {
  await log.append(
    { type: kind.type, data: { ...(entry as unknown as JsonObject), [REGISTERED_BY]: by } },
    options,
  );
}

/** Records the removal of the entry named `name` (`by`: the principal that removed it). */
export async function recordRemoval<T extends { readonly name: string }>(
  log: EventLog,
  kind: RegistrationKind<T>,
  name: string,
  by: string,
  options: SignalOptions = {},
): Promise<void> {
  if (kind.removedType === undefined) throw new Error(`entries of ${kind.type} cannot be removed`);
  await log.append({ type: kind.removedType, data: { name, [REMOVED_BY]: by } }, options);
}
