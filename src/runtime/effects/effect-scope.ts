/**
 * What a verb's handler may touch (seed 002 §11.2): `read(resource)` and `emit(type, data)`
 * on its context check the verb's declared effects. Reading a resource the verb did not
 * declare under `reads`, or emitting an event type it did not declare under `emits`, fails
 * with `FORBIDDEN` naming the verb and the undeclared effect — and fails the job even when
 * the handler catches the error. Emitted events are held here and appended after the
 * handler succeeded (the `emits` effect handler).
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { Effects } from '../../core/records/effects.js';
import { assertPlainJson, EVENT_TYPE_PATTERN } from '../../store/event-input.js';
import type { Principal } from '../context.js';

/** What a resource reader is asked. */
export interface ReadRequest {
  /** The resource, as the handler named it (`budget/tenant`). */
  readonly resource: string;
  readonly query: JsonValue | undefined;
  readonly envelope: Envelope;
  readonly principal: Principal | undefined;
  readonly signal: AbortSignal;
}

/** Answers reads of the resources under one name (`budget` serves `budget` and `budget/…`). */
export type ResourceReader = (request: ReadRequest) => JsonValue | Promise<JsonValue>;

/** An event a handler emitted, waiting for the handler to finish. */
export interface EmittedEvent {
  readonly type: string;
  readonly data: JsonValue;
}

/** One leg's effect scope. */
export interface EffectScope {
  readonly verb: string;
  readonly agentId: string;
  /** The verb's declared effects. */
  readonly declared: Effects;
  /**
   * Reads a declared resource through its reader.
   * @throws PlexusError `FORBIDDEN` when `reads` does not declare it; `NOT_FOUND` when no
   *   reader serves it on this node.
   */
  readonly read: (resource: string, query?: JsonValue) => Promise<JsonValue>;
  /**
   * Emits an event of a declared type (appended after the handler succeeds).
   * @throws PlexusError `FORBIDDEN` when `emits` does not declare it or the type is the
   *   node's own; `INVALID_PARAMS` for a malformed type or data that is not JSON.
   */
  readonly emit: (type: string, data?: JsonValue) => void;
  /** Events emitted so far, in order. */
  readonly emitted: readonly EmittedEvent[];
  /** The first undeclared read or emit, which fails the job. */
  readonly violation: PlexusError | undefined;
}

/** What {@link createEffectScope} needs. */
export interface EffectScopeInit {
  readonly verb: string;
  readonly agentId: string;
  readonly declared: Effects;
  readonly envelope: Envelope;
  readonly principal: Principal | undefined;
  /** The job's signal (made on demand: most legs never need it). */
  readonly signal: () => AbortSignal;
  /** The reader serving a resource, if any. */
  readonly readerOf?: ((resource: string) => ResourceReader | undefined) | undefined;
  /** True for event types only the node writes (a projection of the node reads them). */
  readonly reserved?: ((type: string) => boolean) | undefined;
}

/** True when declared resource `pattern` covers `resource` (equal, or a trailing `*` prefix). */
export function resourceMatches(pattern: string, resource: string): boolean {
  if (pattern === resource || pattern === '*') return true;
  return pattern.endsWith('*') && resource.startsWith(pattern.slice(0, -1));
}

/** True when a declared `emits` resource covers event `type` (`session.started` or `event/session.started`). */
export function emitMatches(pattern: string, type: string): boolean {
  return resourceMatches(pattern, type) || resourceMatches(pattern, `event/${type}`);
}

/** The reader of `resource` in `readers`: the longest name equal to it or followed by `/`. */
export function readerIn(
  readers: ReadonlyMap<string, ResourceReader>,
  resource: string,
): ResourceReader | undefined {
  let name = resource;
  for (;;) {
    const reader = readers.get(name);
    if (reader !== undefined) return reader;
    const slash = name.lastIndexOf('/');
    if (slash <= 0) return undefined;
    name = name.slice(0, slash);
  }
}

/** Creates the scope of one leg. */
export function createEffectScope(init: EffectScopeInit): EffectScope {
  const { verb, agentId, declared } = init;
  const emitted: EmittedEvent[] = [];
  // A plain object (no accessors: an object literal with a getter costs far more to make).
  const scope: { -readonly [K in keyof EffectScope]: EffectScope[K] } = {
    verb,
    agentId,
    declared,
    emitted,
    violation: undefined,
    read: (resource, query) => read(resource, query),
    emit: (type, data = null) => {
      emit(type, data);
    },
  };

  const undeclared = (effect: 'reads' | 'emits', resource: string, why: string): PlexusError => {
    const error = new PlexusError(
      'FORBIDDEN',
      `verb ${verb} (agent ${agentId}) ${why}; declare "${effect}: ${resource}" in the verb's effects to allow it`,
      { details: { verb, agent: agentId, effect, resource, declared: [...(declared[effect] ?? [])] } },
    );
    scope.violation ??= error;
    return error;
  };

  async function read(resource: string, query: JsonValue | undefined): Promise<JsonValue> {
    if (typeof resource !== 'string' || resource === '') {
      throw new PlexusError(
        'INVALID_PARAMS',
        `read() needs a resource name, got ${JSON.stringify(resource)}`,
      );
    }
    if (!(declared.reads ?? []).some((p) => resourceMatches(p, resource))) {
      throw undeclared('reads', resource, `read ${JSON.stringify(resource)}, which it does not declare`);
    }
    const reader = init.readerOf?.(resource);
    if (reader === undefined) {
      throw new PlexusError(
        'NOT_FOUND',
        `no reader serves the resource ${JSON.stringify(resource)} on this node`,
        {
          details: { verb, resource },
        },
      );
    }
    try {
      return await reader({
        resource,
        query,
        envelope: init.envelope,
        principal: init.principal,
        signal: init.signal(),
      });
    } catch (error) {
      throw toPlexusError(error);
    }
  }

  function emit(type: string, data: JsonValue): void {
    if (typeof type !== 'string' || !EVENT_TYPE_PATTERN.test(type)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `emit() needs an event type of dotted lower-case words (session.started), got ${JSON.stringify(type)}`,
      );
    }
    if (!(declared.emits ?? []).some((p) => emitMatches(p, type))) {
      throw undeclared('emits', type, `emitted ${type}, which it does not declare`);
    }
    if (init.reserved?.(type) === true) {
      const error = new PlexusError(
        'FORBIDDEN',
        `verb ${verb} (agent ${agentId}) emitted ${type}, a type only the node itself writes (a projection of the node reads it); emit a type of the verb's own namespace`,
        { details: { verb, agent: agentId, effect: 'emits', resource: type } },
      );
      scope.violation ??= error;
      throw error;
    }
    try {
      assertPlainJson(data);
    } catch (cause) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `the data of ${type} is not JSON: ${toPlexusError(cause).message}`,
        {
          cause,
        },
      );
    }
    emitted.push({ type, data });
  }

  return scope;
}
