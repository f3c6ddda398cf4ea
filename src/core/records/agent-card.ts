/**
 * The `AgentCard` record (DESIGN §2; Nova26 Req. 1): who an agent is, what verbs it
 * offers, how to reach it. The JSON Schema below and the TypeScript type are one source of
 * truth, aligned field for field (a type-level test checks the names).
 */
import type { EnvelopeSignature } from '../envelope.js';
import type { JsonObject } from '../json.js';
import { childPointer } from '../problem.js';
import type { Problem } from '../problem.js';
import {
  JSON_SCHEMA_DIALECT,
  replaceProblemsAt,
  schemaValidator,
  throwIfProblems,
} from '../schema-validator.js';
import type { JsonSchema } from '../schema-validator.js';
import { stripVerbVersion, verbNameProblem } from '../verb-name.js';
import {
  ANY_SCHEMA_SCHEMA,
  EXTENSIONS_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  SIGNATURE_SCHEMA,
  VERB_NAME_SCHEMA,
} from './schema-parts.js';
import { parseJson } from '../parse-json.js';

/** The agent tiers, L0 (orchestrator) to L3 (specialist) — Nova26 Req. 11. */
export const AGENT_TIERS = ['L0', 'L1', 'L2', 'L3'] as const;
/** One of {@link AGENT_TIERS}. */
export type AgentTier = (typeof AGENT_TIERS)[number];

/** Where a registry learned of a card (Nova26 Req. 1.8). */
export const AGENT_ORIGINS = ['local', 'remote'] as const;
/** One of {@link AGENT_ORIGINS}. */
export type AgentOrigin = (typeof AGENT_ORIGINS)[number];

/** One verb an agent offers, with the schemas of its input and output. */
export interface AgentCapability {
  /** The verb name (D6), optionally with `@version`. */
  readonly verb: string;
  /** What the verb does, for people and for discovery. */
  readonly description?: string;
  /** JSON Schema of the input. */
  readonly input: JsonSchema;
  /** JSON Schema of the output. */
  readonly output: JsonSchema;
}

/** One way to reach an agent. */
export interface AgentEndpoint {
  /** The face or transport spoken there (`esrp`, `jsonrpc`, `a2a`, `mcp`, `libp2p`, …). */
  readonly protocol: string;
  /** The address, an absolute URI (`https://…`, `ws://…`, `p2p://…`, `local://…`). */
  readonly url: string;
}

/** An agent's public description. */
export interface AgentCard {
  /** The agent id (a `did:key` for agents with a key, D2). */
  readonly id: string;
  /** Human-readable name. */
  readonly name: string;
  /** The agent's own version (free form, e.g. semver). */
  readonly version: string;
  /** Tier, L0–L3. */
  readonly tier: AgentTier;
  /** Verbs offered; may be empty for a pure client. */
  readonly capabilities: readonly AgentCapability[];
  /** One-paragraph description. */
  readonly description?: string;
  /** Protocols the agent speaks (face names). */
  readonly protocols?: readonly string[];
  /** Where the agent listens. */
  readonly endpoints?: readonly AgentEndpoint[];
  /** The sandbox the agent runs in (Nova26 Req. 10.3). */
  readonly sandboxId?: string;
  /** Registry revision counter; bumped on every re-registration (Nova26 Req. 1.5). */
  readonly revision?: number;
  /** Local or learned from a remote peer. */
  readonly origin?: AgentOrigin;
  /** The agent's signature over the card (D3 block). */
  readonly signature?: EnvelopeSignature;
  /** Extension fields; every key starts with `_x_`. */
  readonly extensions?: JsonObject;
}

/** JSON Schema of one {@link AgentCapability}. */
export const AGENT_CAPABILITY_SCHEMA = {
  type: 'object',
  required: ['verb', 'input', 'output'],
  additionalProperties: false,
  properties: {
    verb: VERB_NAME_SCHEMA,
    description: { type: 'string' },
    input: ANY_SCHEMA_SCHEMA,
    output: ANY_SCHEMA_SCHEMA,
  },
} as const;

/** JSON Schema of one {@link AgentEndpoint}. */
export const AGENT_ENDPOINT_SCHEMA = {
  type: 'object',
  required: ['protocol', 'url'],
  additionalProperties: false,
  properties: {
    protocol: NON_EMPTY_STRING_SCHEMA,
    url: { type: 'string', format: 'uri' },
  },
} as const;

/** JSON Schema of the {@link AgentCard}. Required: id, name, version, tier, capabilities. */
export const AGENT_CARD_SCHEMA = {
  $schema: JSON_SCHEMA_DIALECT,
  $id: 'https://plexus.dev/schemas/core/agent-card.json',
  title: 'AgentCard',
  description: "An agent's public description (DESIGN §2, Nova26 Req. 1).",
  type: 'object',
  required: ['id', 'name', 'version', 'tier', 'capabilities'],
  additionalProperties: false,
  properties: {
    id: NON_EMPTY_STRING_SCHEMA,
    name: NON_EMPTY_STRING_SCHEMA,
    version: NON_EMPTY_STRING_SCHEMA,
    tier: { enum: AGENT_TIERS },
    capabilities: { type: 'array', items: AGENT_CAPABILITY_SCHEMA },
    description: { type: 'string' },
    protocols: { type: 'array', items: NON_EMPTY_STRING_SCHEMA, uniqueItems: true },
    endpoints: { type: 'array', items: AGENT_ENDPOINT_SCHEMA },
    sandboxId: NON_EMPTY_STRING_SCHEMA,
    revision: { type: 'integer', minimum: 0 },
    origin: { enum: AGENT_ORIGINS },
    signature: SIGNATURE_SCHEMA,
    extensions: EXTENSIONS_SCHEMA,
  },
} as const;

/**
 * Every problem of `value` as an AgentCard: the schema (every missing required field is
 * its own problem, Nova26 Req. 1.4), then verb names by the D6 parser, a verb offered
 * twice, and `broadcast` / `*` used as an id.
 */
export function validateAgentCard(value: unknown): Problem[] {
  const problems = schemaValidator().validate(AGENT_CARD_SCHEMA, value);
  if (typeof value !== 'object' || value === null) return problems;
  const card = value as { id?: unknown; capabilities?: unknown };
  if (card.id === 'broadcast' || card.id === '*') {
    problems.push({
      pointer: '/id',
      message: `"${card.id}" is reserved for addressing every agent and is no agent's id`,
    });
  }
  if (Array.isArray(card.capabilities)) {
    const seen = new Map<string, number>();
    card.capabilities.forEach((cap: unknown, i) => {
      const verb = (cap as { verb?: unknown } | null)?.verb;
      if (typeof verb !== 'string') return;
      const pointer = childPointer(childPointer('/capabilities', i), 'verb');
      const problem = verbNameProblem(verb);
      if (problem !== undefined) {
        replaceProblemsAt(problems, pointer, problem);
        return;
      }
      const first = seen.get(verb);
      if (first !== undefined) {
        problems.push({ pointer, message: `verb "${verb}" is already offered by /capabilities/${first}` });
      } else {
        seen.set(verb, i);
      }
    });
  }
  return problems;
}

/**
 * Returns `value` as an AgentCard when it is one.
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` listing every problem.
 */
export function parseAgentCard(value: unknown): AgentCard {
  throwIfProblems(validateAgentCard(value), 'agent card');
  return value as AgentCard;
}

/** The JSON text of a card (lossless: {@link deserializeAgentCard} gives it back). */
export function serializeAgentCard(card: AgentCard): string {
  return JSON.stringify(card);
}

/**
 * Reads a card from JSON text and validates it.
 * @throws PlexusError `PARSE_ERROR` for text that is not JSON; `INVALID_PARAMS` with
 *   `details.problems` for JSON that is not a valid card.
 */
export function deserializeAgentCard(text: string): AgentCard {
  return parseAgentCard(parseJson(text, 'agent card'));
}

/** The capability of `card` offering `verb` (compared without `@version` when `verb` has none). */
export function findCapability(card: AgentCard, verb: string): AgentCapability | undefined {
  const exact = card.capabilities.find((c) => c.verb === verb);
  if (exact !== undefined || verb.includes('@')) return exact;
  return card.capabilities.find((c) => stripVerbVersion(c.verb) === verb);
}
