/**
 * Agent definitions: an agent is its card, the specs of its verbs, and a factory that
 * creates an instance (its handlers). The supervisor calls the factory again to re-create a
 * crashed instance, within the limits of the restart policy.
 */
import type { AgentPrompt, AgentResource } from './agent-offerings.js';
import { PlexusError } from '../../core/errors.js';
import { parseAgentCard } from '../../core/records/agent-card.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import { parseVerbSpec } from '../../core/records/verb-spec.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import { verbAliasProblem } from '../../core/verb-alias.js';
import { stripVerbVersion } from '../../core/verb-name.js';
import type { VerbHandler } from '../context.js';

/** The handlers of one agent instance, keyed by verb exactly as written in the card. */
export type AgentHandlers = Readonly<Record<string, VerbHandler>>;

/** What an agent factory receives. */
export interface AgentInstanceContext {
  /** The agent's id. */
  readonly agentId: string;
  /** 0 for the first instance, then 1, 2, … for each re-creation. */
  readonly incarnation: number;
  /**
   * Reports that this instance died outside any handler (a child process it owns exited, say):
   * its supervisor handles it as a crash of a handler (restart within the intensity limits, or
   * suspend). Calls after the instance was replaced are ignored. Absent where no supervisor
   * runs the instance (a stop hook's context).
   */
  readonly crashed?: (reason: unknown) => void;
}

/** How crashed instances are handled (Erlang-style restart intensity). */
export type RestartStrategy = 'one-for-one' | 'none';

/** The restart policy of one agent. */
export interface RestartPolicy {
  /**
   * `one-for-one` re-creates the crashed agent's instance; `none` never re-creates it (the
   * agent stays unavailable after its first crash until the period passes).
   * @default 'one-for-one'
   */
  readonly strategy: RestartStrategy;
  /**
   * Most restarts inside `periodMs`; one more crash marks the agent unavailable.
   * @default 5
   */
  readonly maxRestarts: number;
  /**
   * The sliding window of `maxRestarts`, and how long an agent stays unavailable.
   * @default 60000
   */
  readonly periodMs: number;
}

/** The default restart policy: one-for-one, at most 5 restarts per 60 s. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  strategy: 'one-for-one',
  maxRestarts: 5,
  periodMs: 60_000,
};

/** How an agent is defined. */
export interface AgentDefinitionInit {
  /** The agent's card (validated; `origin` is forced to `local`, `revision` is the registry's). */
  readonly card: AgentCard;
  /** Specs of the card's verbs (optional; a spec's `deterministic` / `category` drive recovery). */
  readonly verbs?: readonly VerbSpec[];
  /** Creates an instance: a handler for every verb of the card. May be async. */
  readonly create: (context: AgentInstanceContext) => AgentHandlers | Promise<AgentHandlers>;
  /** The restart policy (missing fields take the defaults). */
  readonly restart?: Partial<RestartPolicy>;
  /**
   * Stops an instance: called with its handlers when a supervisor stops or restarts it and
   * when the runtime stops (bounded; errors are reported, not thrown). May be async.
   */
  readonly stop?: AgentStopHook;
  /**
   * Other names of the agent's verbs, alias → verb (docs/decisions/primitive-names.md): each
   * alias is lower camelCase segments (`state.createSession`), each verb one of the card's.
   * Every face resolves them; the runtime records the verb. @default {}
   */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Resources the agent offers (served by the MCP face). @default [] */
  readonly resources?: readonly AgentResource[];
  /** Prompt templates the agent offers (served by the MCP face). @default [] */
  readonly prompts?: readonly AgentPrompt[];
}

/** An agent's stop hook (the counterpart of its `create` factory). */
export type AgentStopHook = (handlers: AgentHandlers, context: AgentInstanceContext) => void | Promise<void>;

/** A checked agent definition, ready for `runtime.agents.add`. */
export interface AgentDefinition {
  readonly card: AgentCard;
  readonly verbs: readonly VerbSpec[];
  readonly create: (context: AgentInstanceContext) => AgentHandlers | Promise<AgentHandlers>;
  readonly restart: RestartPolicy;
  readonly stop?: AgentStopHook;
  /** Other names of its verbs, alias → verb (checked). */
  readonly aliases?: Readonly<Record<string, string>>;
  readonly resources?: readonly AgentResource[];
  readonly prompts?: readonly AgentPrompt[];
}

function checkPolicy(policy: RestartPolicy): RestartPolicy {
  const strategy: string = policy.strategy;
  if (strategy !== 'one-for-one' && strategy !== 'none') {
    throw new PlexusError('INVALID_PARAMS', `restart strategy must be one-for-one or none`, {
      details: { pointer: '/restart/strategy' },
    });
  }
  if (!Number.isSafeInteger(policy.maxRestarts) || policy.maxRestarts < 0) {
    throw new PlexusError('INVALID_PARAMS', 'restart.maxRestarts must be a whole number ≥ 0', {
      details: { pointer: '/restart/maxRestarts' },
    });
  }
  if (!Number.isSafeInteger(policy.periodMs) || policy.periodMs < 1) {
    throw new PlexusError('INVALID_PARAMS', 'restart.periodMs must be a whole number of ms ≥ 1', {
      details: { pointer: '/restart/periodMs' },
    });
  }
  return policy;
}

/**
 * Checks the verb specs against the card: each spec names a verb the card offers (with the
 * same era when the capability carries `@version`), and no verb has two specs.
 *
 * @throws PlexusError `INVALID_PARAMS` naming the offending spec.
 */
export function checkVerbSpecs(card: AgentCard, verbs: readonly VerbSpec[]): readonly VerbSpec[] {
  const seen = new Set<string>();
  verbs.forEach((raw, i) => {
    const spec = parseVerbSpec(raw);
    const offered = card.capabilities.some(
      (c) =>
        stripVerbVersion(c.verb) === spec.name &&
        (!c.verb.includes('@') || c.verb === `${spec.name}@${String(spec.version)}`),
    );
    if (!offered) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `verb spec ${spec.name}@${String(spec.version)} names a verb that agent ${card.id} does not offer in its card`,
        { details: { pointer: `/verbs/${i}` } },
      );
    }
    // One spec per era: an agent may serve several eras of a verb (seed 002 §10.1).
    const era = `${spec.name}@${String(spec.version)}`;
    if (seen.has(era)) {
      throw new PlexusError('INVALID_PARAMS', `agent ${card.id} has two verb specs for ${era}`, {
        details: { pointer: `/verbs/${i}` },
      });
    }
    seen.add(era);
  });
  return verbs;
}

/**
 * Checks that an instance has a handler for every verb of the card.
 *
 * @throws PlexusError `INTERNAL` listing the verbs without a handler.
 */
export function checkHandlers(card: AgentCard, handlers: unknown): AgentHandlers {
  if (typeof handlers !== 'object' || handlers === null) {
    throw new PlexusError('INTERNAL', `the factory of agent ${card.id} returned no handler object`);
  }
  const record = handlers as Record<string, unknown>;
  const missing = card.capabilities.map((c) => c.verb).filter((verb) => typeof record[verb] !== 'function');
  if (missing.length > 0) {
    throw new PlexusError(
      'INTERNAL',
      `the factory of agent ${card.id} returned no handler for ${missing.join(', ')}; return one function per capability verb`,
    );
  }
  return handlers as AgentHandlers;
}

/**
 * Defines an agent: checks the card and verb specs and fills in the restart policy.
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` for a bad card, a bad verb
 *   spec, or a bad restart policy.
 * @example
 * const echo = defineAgent({
 *   card: { id: 'echo', name: 'Echo', version: '1.0.0', tier: 'L3',
 *           capabilities: [{ verb: 'demo.echo', input: true, output: true }] },
 *   create: () => ({ 'demo.echo': (input) => input }),
 * });
 */
export function defineAgent(init: AgentDefinitionInit): AgentDefinition {
  const card = parseAgentCard(init.card);
  if (typeof init.create !== 'function') {
    throw new PlexusError('INVALID_PARAMS', `agent ${card.id} needs a create() factory`, {
      details: { pointer: '/create' },
    });
  }
  const verbs = checkVerbSpecs(card, init.verbs ?? []);
  const restart = checkPolicy({ ...DEFAULT_RESTART_POLICY, ...init.restart });
  if (init.stop !== undefined && typeof init.stop !== 'function') {
    throw new PlexusError('INVALID_PARAMS', `agent ${card.id}: stop must be a function`, {
      details: { pointer: '/stop' },
    });
  }
  const aliases = init.aliases === undefined ? undefined : checkAliases(card, init.aliases);
  return {
    card,
    verbs,
    create: init.create,
    restart,
    ...(init.stop === undefined ? {} : { stop: init.stop }),
    ...(aliases === undefined ? {} : { aliases }),
    ...(init.resources === undefined ? {} : { resources: init.resources }),
    ...(init.prompts === undefined ? {} : { prompts: init.prompts }),
  };
}

/**
 * Checks an agent's verb aliases: each alias is a valid alias name and no verb name of the
 * card, each target a verb of the card.
 *
 * @throws PlexusError `INVALID_PARAMS` naming the offending alias.
 */
export function checkAliases(
  card: AgentCard,
  aliases: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  const verbs = new Set(card.capabilities.map((c) => stripVerbVersion(c.verb)));
  const out: Record<string, string> = {};
  for (const [alias, verb] of Object.entries(aliases)) {
    const pointer = `/aliases/${alias.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const problem = verbAliasProblem(alias);
    if (problem !== undefined) {
      throw new PlexusError('INVALID_PARAMS', `agent ${card.id}: alias ${problem}`, { details: { pointer } });
    }
    if (verbs.has(alias)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `agent ${card.id}: alias ${JSON.stringify(alias)} is already one of its verbs`,
        { details: { pointer } },
      );
    }
    if (typeof verb !== 'string' || !verbs.has(verb)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `agent ${card.id}: alias ${JSON.stringify(alias)} names ${JSON.stringify(verb)}, which is not a verb of its card`,
        { details: { pointer } },
      );
    }
    out[alias] = verb;
  }
  return out;
}
