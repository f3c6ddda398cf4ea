/**
 * The agents of `plexus mock` (seed 002 §12.1, §12.3): a verb manifest turned into ordinary
 * Plexus agents, so a mock node serves every face a real one does (ESRP, JSON-RPC over
 * WebSocket, Emergence, discovery).
 *
 * - One agent per verb namespace (the first segment: `atelier`, `soul`, …), id = the namespace.
 * - Its card offers every served era as `name@version`, the era a bare name resolves to first
 *   (the latest stable era, else the latest deprecated one — as `plexus lint --pipeline`
 *   resolves names), so a call without `@version` reaches that era and `name@version` any era.
 *   Sunset eras are not served. The verb spec registered per name is that preferred era's.
 * - Each handler returns a value generated from the era's output schema, seeded by the SHA-256
 *   of the RFC 8785 form of `{verb: name@version, input}`: the same input gives the same
 *   output, on every face and every run. The runtime still checks the input and the output
 *   against the schemas, as for any agent.
 * - Like the demo agents, a mock agent also takes the `{inputs, params}` data of an ESRP request
 *   (what `plexus call --data` sends) and reads the plain input out of it.
 */
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import { PlexusError } from '../../core/errors.js';
import { sha256Hex } from '../../core/hash.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { AgentCapability } from '../../core/records/agent-card.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import {
  JSON_SCHEMA_DIALECT,
  schemaValidator,
  type JsonSchema,
  type SchemaValidator,
} from '../../core/schema-validator.js';
import { defineAgent, type AgentDefinition, type VerbHandler } from '../../runtime/index.js';
import { eraKey, resolveStep, type Manifest } from '../../wire/agentese/manifest/index.js';
import { checkedInput, ESRP_DATA_SCHEMA } from '../demo/esrp-input.js';
import { sampleMatching } from './sample-schema.js';

/** One era a mock node serves. */
export interface MockVerb {
  /** `name@version`. */
  readonly verb: string;
  /** The verb name without `@version`. */
  readonly name: string;
  /** The id of the agent serving it. */
  readonly agent: string;
  readonly category: VerbSpec['category'];
  readonly status: VerbSpec['status'];
  /** True when a bare `name` (no `@version`) reaches this era. */
  readonly preferred: boolean;
  /** The era's spec. */
  readonly spec: VerbSpec;
}

/** What {@link mockAgents} builds. */
export interface MockAgents {
  readonly agents: readonly AgentDefinition[];
  /**
   * Every era, in manifest order. Sunset eras are registered too: the runtime refuses calls
   * to them with their migration pointer (`VERB_SUNSET`).
   */
  readonly verbs: readonly MockVerb[];
}

/** Options of {@link mockAgents}. */
export interface MockAgentsInit {
  /** The validator used to check generated values. @default schemaValidator() */
  readonly validator?: SchemaValidator;
}

/** The seed of a mock output: SHA-256 of the RFC 8785 text of `{verb, input}` (hex). */
export function mockSeed(verb: string, input: JsonValue): string {
  let text: string;
  try {
    text = canonicalizeJcs({ verb, input });
  } catch {
    text = JSON.stringify({ verb, input });
  }
  return sha256Hex(text);
}

/**
 * The mock output of one era for `input`: a value of the era's output schema, the same for
 * the same input.
 *
 * @throws PlexusError `INVALID_PARAMS` when no value can be generated for the output schema.
 */
export function mockOutput(
  spec: VerbSpec,
  input: JsonValue,
  validator: SchemaValidator = schemaValidator(),
): JsonValue {
  const verb = eraKey(spec.name, spec.version);
  return sampleMatching(spec.output, mockSeed(verb, input), validator);
}

/**
 * An example input of an era, for banners and docs: a value of its input schema generated
 * from a fixed seed, with nesting kept shallow.
 *
 * @throws PlexusError `INVALID_PARAMS` when no value can be generated for the input schema.
 */
export function mockExampleInput(spec: VerbSpec, validator: SchemaValidator = schemaValidator()): JsonValue {
  return sampleMatching(spec.input, mockSeed(`example:${eraKey(spec.name, spec.version)}`, null), validator, {
    maxDepth: 2,
  });
}

/**
 * A capability input schema that takes the era's input, or ESRP request data (checked by the
 * handler once the plain input is read out of it). The era's `$defs` move to the top so its
 * `#/$defs/…` references still resolve.
 */
export function mockInputSchema(input: JsonSchema): JsonSchema {
  if (typeof input === 'boolean')
    return { $schema: JSON_SCHEMA_DIALECT, if: ESRP_DATA_SCHEMA, then: true, else: input };
  const plain: Record<string, unknown> = { ...input };
  const $defs = plain['$defs'];
  delete plain['$schema'];
  delete plain['$defs'];
  delete plain['$id'];
  return {
    $schema: JSON_SCHEMA_DIALECT,
    ...($defs === undefined ? {} : { $defs }),
    if: ESRP_DATA_SCHEMA,
    then: true,
    else: plain,
  };
}

/** The most progress chunks a mock `stream` verb reports. */
export const MOCK_STREAM_CHUNKS = 16;

/**
 * What a mock `stream` verb reports as progress before answering: the items of its output when
 * it is a list, else of its first list-valued field (at most {@link MOCK_STREAM_CHUNKS}).
 */
export function streamChunks(output: JsonValue): JsonValue[] {
  const list = Array.isArray(output)
    ? output
    : isJsonObject(output)
      ? Object.values(output).find((v): v is JsonValue[] => Array.isArray(v))
      : undefined;
  return (list ?? []).slice(0, MOCK_STREAM_CHUNKS);
}

function namespaceOf(name: string): string {
  return name.split('.')[0] ?? name;
}

/**
 * The agents that serve `manifest` (see the module comment). The manifest must have no errors.
 *
 * @throws PlexusError `INVALID_PARAMS` when the manifest serves no verb, or an output schema
 *   admits no value the generator can write (checked up front, so the node never starts with
 *   a verb that cannot answer).
 */
export function mockAgents(manifest: Manifest, init: MockAgentsInit = {}): MockAgents {
  const validator = init.validator ?? schemaValidator();
  const preferredOf = new Map<string, VerbSpec>();
  for (const spec of manifest.verbs) {
    if (!preferredOf.has(spec.name)) {
      const era = resolveStep(manifest, spec.name);
      if (typeof era !== 'string') preferredOf.set(spec.name, era);
    }
  }
  const verbs: MockVerb[] = [];
  for (const spec of manifest.verbs) {
    const verb = eraKey(spec.name, spec.version);
    const preferred = preferredOf.get(spec.name) === spec;
    verbs.push({
      verb,
      name: spec.name,
      agent: namespaceOf(spec.name),
      category: spec.category,
      status: spec.status,
      preferred,
      spec,
    });
  }
  if (verbs.every((v) => v.status === 'sunset')) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `${manifest.file} declares no era that is not sunset: nothing to serve`,
    );
  }
  // A sunset era is registered (so a call to it is refused with its migration pointer by the
  // runtime's era step) but never answers: it needs no generable output.
  for (const v of verbs) {
    if (v.status === 'sunset') continue;
    try {
      mockOutput(v.spec, null, validator);
    } catch (cause) {
      throw new PlexusError('INVALID_PARAMS', `cannot mock ${v.verb}: ${(cause as Error).message}`, {
        cause,
      });
    }
  }
  const namespaces = [...new Set(verbs.map((v) => v.agent))];
  const agents = namespaces.map((namespace) => {
    // Preferred eras first, so a bare name finds its preferred era first in the card.
    const served = verbs
      .filter((v) => v.agent === namespace)
      .sort((a, b) => Number(b.preferred) - Number(a.preferred));
    const capabilities: AgentCapability[] = served.map((v) => ({
      verb: v.verb,
      ...(v.spec.description === undefined ? {} : { description: v.spec.description }),
      input: mockInputSchema(v.spec.input),
      output: v.spec.output,
    }));
    const handlers: Record<string, VerbHandler> = {};
    for (const v of served) {
      handlers[v.verb] = (input, context) => {
        const output = mockOutput(v.spec, checkedInput(input, v.spec.input), validator);
        if (v.category === 'stream') for (const chunk of streamChunks(output)) context.progress(chunk);
        return output;
      };
    }
    return defineAgent({
      card: {
        id: namespace,
        name: `Mock ${namespace}`,
        version: '0.0.0-mock',
        tier: 'L3',
        description: `Mock of the ${namespace} verbs of ${manifest.name ?? manifest.file}: answers with generated values that match each output schema.`,
        capabilities,
        protocols: ['esrp', 'emergence', 'jsonrpc'],
      },
      verbs: served.map((v) => v.spec),
      create: () => handlers,
    });
  });
  return { agents, verbs };
}
