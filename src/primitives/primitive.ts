/**
 * The contract every Hyperspace primitive (seed 003 §4–6, §8) follows: a primitive is an
 * ordinary agent of the runtime whose verbs are the seed's JSON-RPC methods, whose durable
 * state is a set of projections of the event log (D9), and whose JSON-RPC method names
 * (`state.createSession`) map onto Plexus verb names (`state.create_session`, D6).
 *
 * A handler changes state only by appending events to the log and reads state only from its
 * primitive's projection views, so `plexus replay --verify` rebuilds every primitive.
 */
import { PlexusError } from '../core/errors.js';
import type { AgentCapability } from '../core/records/agent-card.js';
import type { Effects } from '../core/records/effects.js';
import type { VerbSpec } from '../core/records/verb-spec.js';
import type { JsonSchema } from '../core/schema-validator.js';
import { defineAgent, type AgentDefinition, type AgentHandlers, type VerbHandler } from '../runtime/index.js';
import type { EventLog, SignalOptions } from '../store/event-log.js';
import type { ProjectionView } from '../store/projection-view.js';

/** What every primitive factory receives. */
export interface PrimitiveComponents {
  /** The node's event log (started by its owner before the primitive starts). */
  readonly log: EventLog;
  /** The clock, Unix ms. @default Date.now */
  readonly now?: () => number;
}

/** One method of a primitive: a seed JSON-RPC method and the verb that implements it. */
export interface PrimitiveMethod {
  /** The seed's method name after the primitive's dot, exactly as written (`createSession`). */
  readonly method: string;
  /** One line on what it does (card capability description and docs). */
  readonly description: string;
  /** JSON Schema (2020-12) of the params; the runtime checks it (−32602 naming the field). */
  readonly input: JsonSchema;
  /** JSON Schema of the result; the runtime checks handler outputs against it. */
  readonly output: JsonSchema;
  /** `query` when the method changes nothing, `mutation` otherwise. */
  readonly category: 'query' | 'mutation';
  /**
   * What the method touches (seed 002 Part III), as resources named `<primitive>/<what>`
   * (`writes: ['state/sessions']`); `{}` for a method that touches nothing. A capability token
   * must grant each one (docs/capabilities.md, "The built-in verbs").
   */
  readonly effects: Effects;
  /**
   * True when the same params on the same state always give the same result (recovery may
   * run it again after a crash).
   * @default category === 'query'
   */
  readonly deterministic?: boolean;
  /** The implementation. */
  readonly handler: VerbHandler;
}

/** What {@link definePrimitive} takes. */
export interface PrimitiveInit {
  /** The primitive's name, the namespace of its verbs and its agent id (`state`). */
  readonly name: string;
  /** A human-readable name for the card (`Hyperspace state`). */
  readonly title: string;
  /** Its methods. */
  readonly methods: readonly PrimitiveMethod[];
  /** The live projections its handlers read (started before, stopped after, the runtime). */
  readonly views?: readonly ProjectionView<unknown>[];
}

/** A primitive, ready to register on a runtime and expose on the JSON-RPC face. */
export interface Primitive {
  /** The primitive's name (`state`). */
  readonly name: string;
  /** The agent (card, verb specs, handlers) to pass to the runtime. */
  readonly agent: AgentDefinition;
  /** JSON-RPC method → verb (`state.createSession` → `state.create_session`), for the WS face. */
  readonly methods: Readonly<Record<string, string>>;
  /** Its live projections (for `plexus replay --verify`). */
  readonly views: readonly ProjectionView<unknown>[];
  /** Starts the views (catching up with the log). Idempotent. */
  start(options?: SignalOptions): Promise<void>;
  /** Stops the views. Safe to call twice. */
  stop(): Promise<void>;
}

const CAMEL_METHOD = /^[a-z][a-zA-Z0-9]*(\.[a-z][a-zA-Z0-9]*)?$/;

/**
 * The verb of a seed method: the method's camelCase words in snake_case under the
 * primitive's namespace (`state`, `createSession` → `state.create_session`;
 * `micropayments`, `channel.open` → `micropayments.channel.open`).
 *
 * @throws PlexusError `INVALID_PARAMS` when `method` is not lower camelCase.
 */
export function primitiveVerb(primitive: string, method: string): string {
  if (!CAMEL_METHOD.test(method)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `primitive method ${JSON.stringify(method)} must be lower camelCase words, at most two, joined by a dot`,
    );
  }
  return `${primitive}.${method.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
}

/**
 * The capability scope a primitive method needs: `<primitive>:read` for a query,
 * `<primitive>:write` for a mutation (`state:write` for `state.create_session`).
 */
export function primitiveScope(primitive: string, category: 'query' | 'mutation'): string {
  return `${primitive}:${category === 'query' ? 'read' : 'write'}`;
}

/**
 * Defines a primitive: one agent whose id is the primitive's name, one capability and verb
 * spec per method (its scope from {@link primitiveScope}, its declared effects), and the
 * method → verb table of the JSON-RPC face.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad name, method or schema (from the card checks),
 *   or a method listed twice.
 */
export function definePrimitive(init: PrimitiveInit): Primitive {
  const views = init.views ?? [];
  const methods: Record<string, string> = {};
  const capabilities: AgentCapability[] = [];
  const verbs: VerbSpec[] = [];
  const handlers: Record<string, VerbHandler> = {};
  for (const m of init.methods) {
    const verb = primitiveVerb(init.name, m.method);
    if (Object.hasOwn(handlers, verb)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `primitive ${init.name} lists method ${JSON.stringify(m.method)} twice`,
      );
    }
    methods[`${init.name}.${m.method}`] = verb;
    capabilities.push({ verb, description: m.description, input: m.input, output: m.output });
    verbs.push({
      name: verb,
      version: 1,
      status: 'stable',
      input: m.input,
      output: m.output,
      effects: m.effects,
      capabilities: [primitiveScope(init.name, m.category)],
      category: m.category,
      deterministic: m.deterministic ?? m.category === 'query',
      description: m.description,
    });
    handlers[verb] = m.handler;
  }
  const frozen: AgentHandlers = handlers;
  const agent = defineAgent({
    card: {
      id: init.name,
      name: init.title,
      version: '1.0.0',
      tier: 'L3',
      capabilities,
      protocols: ['jsonrpc', 'esrp'],
    },
    verbs,
    create: () => frozen,
    // the seed's names are aliases of the verbs (docs/decisions/primitive-names.md)
    aliases: Object.fromEntries(Object.entries(methods).filter(([method, verb]) => method !== verb)),
  });
  let started: Promise<void> | undefined;
  return {
    name: init.name,
    agent,
    methods,
    views,
    start(options) {
      if (started === undefined) {
        const starting = Promise.all(views.map((v) => v.start(options))).then(() => undefined);
        started = starting;
        // A failed start may be retried: forget it (unless a stop or a new start came since).
        starting.catch(() => {
          if (started === starting) started = undefined;
        });
      }
      return started;
    },
    async stop() {
      if (started === undefined) return;
      started = undefined;
      await Promise.all(views.map((v) => v.stop()));
    },
  };
}
