/**
 * Defining verbs and agents with the SDK (seed 002 Epilogue): `verb(name, options, handler)`
 * declares one verb — schemas, effects, required capability scopes — and `agent(id, verbs)`
 * groups verbs into an agent a Plexus instance can host.
 */
import { PlexusError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import type { AgentTier } from '../core/records/agent-card.js';
import { normalizeEffects, type EffectName, type Effects } from '../core/records/effects.js';
import { parseVerbSpec, type VerbCategory, type VerbSpec } from '../core/records/verb-spec.js';
import type { JsonSchema } from '../core/schema-validator.js';
import type { VerbVersion } from '../core/verb-name.js';
import type { RestartPolicy } from '../runtime/agents/agent.js';
import type { AgentPrompt, AgentResource } from '../runtime/agents/agent-offerings.js';
import type { Refusal } from './refusal.js';
import type { VerbContext } from './verb-context.js';

/** Effects as a manifest writes them: `{reads: ['x']}`, `['reads: x']` or `[{writes: 'y'}]`. */
export type EffectsInput =
  Effects | readonly (string | Readonly<Record<string, string | readonly string[]>>)[];

/** What a verb declares. */
export interface VerbOptions {
  /** JSON Schema (2020-12) of the input. */
  readonly input: JsonSchema;
  /** JSON Schema of the output (a refusal is always admitted beside it). */
  readonly output: JsonSchema;
  /** Declared side effects (seed 002 §3.1). @default {} */
  readonly effects?: EffectsInput;
  /** Capability scopes a caller's token must cover (`soul:read`). @default [] */
  readonly capabilities?: readonly string[];
  /** @default 'mutation' when the effects write, delete, charge or earn, else 'query' */
  readonly category?: VerbCategory;
  /** True when the same input always gives the same output (safe to run again). @default false */
  readonly deterministic?: boolean;
  /** The era (`1`, `'2024-12'`). @default 1 */
  readonly version?: VerbVersion;
  readonly description?: string;
}

/** A verb's implementation: its input, the call's context; its output or a refusal. */
export type VerbHandlerFn<I = JsonValue, O = JsonValue> = (
  input: I,
  context: VerbContext,
) => O | Refusal | Promise<O | Refusal>;

/** A defined verb. */
export interface VerbDefinition<I = JsonValue, O = JsonValue> {
  /** The verb name, without `@version`. */
  readonly name: string;
  /** Its checked spec (what the registry stores and `query` returns). */
  readonly spec: VerbSpec;
  /** The implementation (input already checked against `spec.input`). */
  handler(input: I, context: VerbContext): O | Refusal | Promise<O | Refusal>;
}

/**
 * Any defined verb, whatever its input and output types: what `agent` and `compose` take
 * (a `VerbDefinition<Query, Crystal>` is one).
 */
export type SomeVerbDefinition = VerbDefinition<never, unknown>;

const CHANGING: readonly EffectName[] = ['writes', 'deletes', 'charges', 'earns'];

/**
 * Defines a verb.
 *
 * @throws PlexusError `INVALID_PARAMS` (with `details.problems`) for a bad name (D6: 2–3
 *   segments `[a-z][a-z0-9_]*`, no `@version` — put the era in `version`), bad effects, bad
 *   scopes, or a handler that is not a function.
 * @example
 * const recall = verb('soul.memory.recall', {
 *   input: { type: 'object', required: ['query'], properties: { query: { type: 'string' } } },
 *   output: { type: ['object', 'null'] },
 *   effects: ['reads: memory_crystals'],
 *   capabilities: ['soul:read'],
 * }, async (input, ctx) => memories.find(input.query) ?? null);
 */
export function verb<I = JsonValue, O = JsonValue>(
  name: string,
  options: VerbOptions,
  handler: VerbHandlerFn<I, O>,
): VerbDefinition<I, O> {
  if (typeof handler !== 'function') {
    throw new PlexusError('INVALID_PARAMS', `verb ${name} needs a handler function`, {
      details: { verb: name },
    });
  }
  const effects = normalizeEffects(options.effects ?? {});
  const changes = CHANGING.some((e) => (effects[e]?.length ?? 0) > 0);
  const spec = parseVerbSpec({
    name,
    version: options.version ?? 1,
    status: 'stable',
    input: options.input,
    output: options.output,
    effects,
    capabilities: [...(options.capabilities ?? [])],
    category: options.category ?? (changes ? 'mutation' : 'query'),
    deterministic: options.deterministic ?? false,
    ...(options.description === undefined ? {} : { description: options.description }),
  });
  return { name: spec.name, spec, handler };
}

/** How an agent presents itself. */
export interface AgentOptions {
  /** @default the id */
  readonly name?: string;
  /** The agent's own version. @default '1.0.0' */
  readonly version?: string;
  /** @default 'L3' */
  readonly tier?: AgentTier;
  readonly description?: string;
  /** How crashed instances are restarted. @default one-for-one, 5 restarts per 60 s */
  readonly restart?: Partial<RestartPolicy>;
  /** Resources made by {@link resource} (served on the MCP face). @default [] */
  readonly resources?: readonly AgentResource[];
  /** Prompts made by {@link prompt} (served on the MCP face). @default [] */
  readonly prompts?: readonly AgentPrompt[];
}

/** An agent: an id and its verbs, ready for `plexus.register`. */
export interface AgentSpec {
  readonly id: string;
  readonly verbs: readonly SomeVerbDefinition[];
  readonly options: AgentOptions;
}

/**
 * Groups verbs into an agent.
 *
 * @throws PlexusError `INVALID_PARAMS` for an empty id, no verbs, or two verbs with one name.
 */
export function agent(
  id: string,
  verbs: readonly SomeVerbDefinition[],
  options: AgentOptions = {},
): AgentSpec {
  if (typeof id !== 'string' || id.trim() === '') {
    throw new PlexusError('INVALID_PARAMS', 'an agent needs a non-empty id');
  }
  const list: unknown = verbs;
  if (!Array.isArray(list) || list.length === 0) {
    throw new PlexusError('INVALID_PARAMS', `agent ${id} needs at least one verb`);
  }
  const seen = new Set<string>();
  for (const v of verbs) {
    if (seen.has(v.name)) {
      throw new PlexusError('INVALID_PARAMS', `agent ${id} defines verb ${v.name} twice`, {
        details: { verb: v.name },
      });
    }
    seen.add(v.name);
  }
  return { id, verbs, options };
}
