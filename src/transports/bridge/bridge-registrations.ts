/**
 * Bridge entries added at run time (seed 003 §10.1 `bridge.registerMCPServer`, §10.2
 * `bridge.announceA2AAgent`; docs/decisions/mcp.md MCP-36, a2a.md A2A-19), kept in the event log
 * as one event type per bridge (node-wide, not tenant-scoped) and read back when the bridge
 * starts, so an entry added at run time is bridged again after a restart. A later entry of a
 * name replaces the earlier one; a removal event (a bridge that has one) drops the name.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { EventLog, SignalOptions } from '../../store/event-log.js';
import type { EventMap } from '../../store/event-map.js';

/** The field of a recorded entry naming the principal that added it (the audit trail). */
export const REGISTERED_BY = 'registeredBy';
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
  /** The event type of a removal (`{name, removedBy}`), for bridges whose entries can be removed. */
  readonly removed?: RegistrationEventType;
}

/** The field of a removal naming the principal that removed the entry (the audit trail). */
export const REMOVED_BY = 'removedBy';

/**
 * The entries in the log, the latest per name, in the order first added. An event whose entry
 * no longer parses is skipped and reported through `skipped`.
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
    const types = kind.removed === undefined ? [kind.type] : [kind.type, kind.removed];
    const events = await log.read({ type: types, afterSeq, limit: PAGE, ...options });
    for (const event of events) {
      if (event.type === kind.removed) {
        const name = (event.data as JsonObject)['name'];
        if (typeof name === 'string') byName.delete(name);
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

/**
 * Records that the entry `name` was removed (`by`: the principal, for the audit trail).
 * @throws PlexusError `INTERNAL` when `kind` has no removal event.
 */
export async function recordRemoval(
  log: EventLog,
  kind: RegistrationKind<{ readonly name: string }>,
  name: string,
  by: string,
  options: SignalOptions = {},
): Promise<void> {
  if (kind.removed === undefined) throw new PlexusError('INTERNAL', `${kind.type} entries cannot be removed`);
  await log.append({ type: kind.removed, data: { name, [REMOVED_BY]: by } }, options);
}
