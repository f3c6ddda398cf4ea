/**
 * The `VerbSpec` record (DESIGN §2, D6; seed 002 §1.3, Parts III, V, X): one era of one verb
 * — its schemas, declared effects, required capability scopes, category, projection hints
 * and deprecation. The JSON Schema and the TypeScript type are one source of truth.
 */
import type { JsonObject } from '../json.js';
import type { Problem } from '../problem.js';
import {
  JSON_SCHEMA_DIALECT,
  replaceProblemsAt,
  schemaValidator,
  throwIfProblems,
} from '../schema-validator.js';
import type { JsonSchema } from '../schema-validator.js';
import { verbNameProblem, verbVersionProblem } from '../verb-name.js';
import type { VerbVersion } from '../verb-name.js';
import { EFFECT_NAMES } from './effects.js';
import type { Effects } from './effects.js';
import {
  ANY_SCHEMA_SCHEMA,
  DATE_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  VERB_NAME_SCHEMA,
  VERB_VERSION_SCHEMA,
} from './schema-parts.js';

/** What a verb does to the world: reads, changes, or streams (seed 002 §1.3). */
export const VERB_CATEGORIES = ['query', 'mutation', 'stream'] as const;
/** One of {@link VERB_CATEGORIES}. */
export type VerbCategory = (typeof VERB_CATEGORIES)[number];

/** The status of an era (seed 002 §10.1). */
export const ERA_STATUSES = ['stable', 'deprecated', 'sunset'] as const;
/** One of {@link ERA_STATUSES}. */
export type EraStatus = (typeof ERA_STATUSES)[number];

/** When an era stops being recommended and when it stops working (seed 002 §10.1, §10.3). */
export interface VerbDeprecation {
  /** The date the era is (or will be) deprecated, `YYYY-MM-DD`. */
  readonly deprecatedAt: string;
  /** The date the era stops being served, `YYYY-MM-DD`. */
  readonly sunsetAt?: string;
  /** Where to read how to migrate (a URL or a document path). */
  readonly migration?: string;
  /** The verb (with `@version`) to use instead. */
  readonly replacement?: string;
  /** A line for the deprecation warning. */
  readonly message?: string;
}

/** Projection hints keyed `surface:mode` (`ui:form`, `cli:json`, …) — D6, seed 002 §5.1. */
export type ProjectionHints = Readonly<Record<string, JsonObject>>;

/** One era of one verb. */
export interface VerbSpec {
  /** The verb name without `@version` (D6). */
  readonly name: string;
  /** The era. */
  readonly version: VerbVersion;
  /** The era's status. */
  readonly status: EraStatus;
  /** JSON Schema of the input. */
  readonly input: JsonSchema;
  /** JSON Schema of the output. */
  readonly output: JsonSchema;
  /** Declared effects, normalised to `{effect: [resources]}` (D6). */
  readonly effects: Effects;
  /** Capability scopes the caller's token must cover (`soul:read`). */
  readonly capabilities: readonly string[];
  /** Query, mutation or stream. */
  readonly category: VerbCategory;
  /** True when the same input always gives the same output (cacheable). */
  readonly deterministic: boolean;
  /** Projection hints keyed `surface:mode`. */
  readonly projection?: ProjectionHints;
  /** Deprecation dates; required when `status` is not `stable`. */
  readonly deprecation?: VerbDeprecation;
  /** What the verb does. */
  readonly description?: string;
}

/** The pattern a capability scope matches: `namespace:ability` (`atelier:write`, `soul:*`). */
export const CAPABILITY_SCOPE_PATTERN_SOURCE = '^[A-Za-z0-9_.*/-]+:[A-Za-z0-9_.*/-]+$';
/** The pattern a projection key matches: `surface:mode`. */
export const PROJECTION_KEY_PATTERN_SOURCE = '^[a-z][a-z0-9_-]*:[a-z][a-z0-9_-]*$';

const RESOURCE_LIST_SCHEMA = { type: 'array', items: NON_EMPTY_STRING_SCHEMA, uniqueItems: true } as const;

/** JSON Schema of normalised effects: `{effect: [resources]}` with the nine effect names. */
export const EFFECTS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(EFFECT_NAMES.map((e) => [e, RESOURCE_LIST_SCHEMA])) as Record<
    (typeof EFFECT_NAMES)[number],
    typeof RESOURCE_LIST_SCHEMA
  >,
} as const;

/** JSON Schema of {@link VerbDeprecation}. */
export const VERB_DEPRECATION_SCHEMA = {
  type: 'object',
  required: ['deprecatedAt'],
  additionalProperties: false,
  properties: {
    deprecatedAt: DATE_SCHEMA,
    sunsetAt: DATE_SCHEMA,
    migration: NON_EMPTY_STRING_SCHEMA,
    replacement: VERB_NAME_SCHEMA,
    message: { type: 'string' },
  },
} as const;

/** JSON Schema of the {@link VerbSpec}. */
export const VERB_SPEC_SCHEMA = {
  $schema: JSON_SCHEMA_DIALECT,
  $id: 'https://plexus.dev/schemas/core/verb-spec.json',
  title: 'VerbSpec',
  description: 'One era of one verb (DESIGN §2, D6).',
  type: 'object',
  required: [
    'name',
    'version',
    'status',
    'input',
    'output',
    'effects',
    'capabilities',
    'category',
    'deterministic',
  ],
  additionalProperties: false,
  properties: {
    name: VERB_NAME_SCHEMA,
    version: VERB_VERSION_SCHEMA,
    status: { enum: ERA_STATUSES },
    input: ANY_SCHEMA_SCHEMA,
    output: ANY_SCHEMA_SCHEMA,
    effects: EFFECTS_SCHEMA,
    capabilities: {
      type: 'array',
      items: { type: 'string', pattern: CAPABILITY_SCOPE_PATTERN_SOURCE },
      uniqueItems: true,
    },
    category: { enum: VERB_CATEGORIES },
    deterministic: { type: 'boolean' },
    projection: {
      type: 'object',
      propertyNames: { type: 'string', pattern: PROJECTION_KEY_PATTERN_SOURCE },
      additionalProperties: { type: 'object' },
    },
    deprecation: VERB_DEPRECATION_SCHEMA,
    description: { type: 'string' },
  },
} as const;

/**
 * Every problem of `value` as a VerbSpec: the schema, then the D6 verb-name rules on `name`
 * (which must carry no `@version`; the era goes in `version`), a `deprecated` era without
 * `deprecation`, a `sunset` era without `deprecation.sunsetAt`, and a sunset before the
 * deprecation.
 */
export function validateVerbSpec(value: unknown): Problem[] {
  const problems = schemaValidator().validate(VERB_SPEC_SCHEMA, value);
  if (typeof value !== 'object' || value === null) return problems;
  const spec = value as { name?: unknown; version?: unknown; status?: unknown; deprecation?: unknown };
  if (spec.version !== undefined) {
    const problem = verbVersionProblem(spec.version);
    if (problem !== undefined) replaceProblemsAt(problems, '/version', problem);
  }
  if (typeof spec.name === 'string') {
    const problem = verbNameProblem(spec.name);
    if (problem !== undefined) replaceProblemsAt(problems, '/name', problem);
    else if (spec.name.includes('@')) {
      replaceProblemsAt(problems, '/name', 'the name must not carry "@version"; put the era in "version"');
    }
  }
  const dep =
    typeof spec.deprecation === 'object' && spec.deprecation !== null
      ? (spec.deprecation as Record<string, unknown>)
      : undefined;
  if ((spec.status === 'deprecated' || spec.status === 'sunset') && dep === undefined) {
    problems.push({
      pointer: '',
      message: `missing required property "deprecation", required when status is "${spec.status}"`,
    });
  }
  if (spec.status === 'sunset' && dep !== undefined && dep['sunsetAt'] === undefined) {
    problems.push({
      pointer: '/deprecation',
      message: 'missing required property "sunsetAt", required when status is "sunset"',
    });
  }
  const { deprecatedAt, sunsetAt } = dep ?? {};
  if (typeof deprecatedAt === 'string' && typeof sunsetAt === 'string' && sunsetAt < deprecatedAt) {
    problems.push({
      pointer: '/deprecation/sunsetAt',
      message: `must not be before deprecatedAt ${deprecatedAt}`,
    });
  }
  return problems;
}

/**
 * Returns `value` as a VerbSpec when it is one.
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` listing every problem.
 */
export function parseVerbSpec(value: unknown): VerbSpec {
  throwIfProblems(validateVerbSpec(value), 'verb spec');
  return value as VerbSpec;
}
