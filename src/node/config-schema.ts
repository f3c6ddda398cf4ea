/**
 * `plexus.yaml`, described once: a zod 4 schema per section, composed into
 * {@link nodeConfigSchema}. The types of the configuration ({@link NodeConfig} and one per
 * section) are inferred from these schemas, `parseNodeConfig` checks with them, and
 * `plexus config schema` prints them as JSON Schema (docs/config.md).
 *
 * Every message is written here, in the words the hand-written validators used ("must be a
 * whole number from 0 to 65535, got 70000"); `config-errors.ts` turns the first issue into a
 * `PlexusError` naming the field, its JSON pointer and its place in the file.
 *
 * A new capability adds its own section: a schema here, one line in {@link NODE_CONFIG_SECTIONS}.
 */
import { z } from 'zod';
import { toMicros } from '../primitives/money.js';
import { didYouMean } from '../wire/agentese/manifest/problems.js';
import { SUPERVISION_STRATEGIES, type SupervisorSpec } from '../runtime/supervision/supervision-spec.js';
import { DEMO_AGENT_IDS } from './demo-agent-ids.js';
import { HYPERSPACE_PRIMITIVES } from './primitive-names.js';
import { LOG_FORMATS, LOG_LEVELS } from '../observability/logging/log-options.js';

/**
 * `T` read-only all the way down, its optional properties without the explicit `undefined` zod
 * infers (the project compiles with `exactOptionalPropertyTypes`).
 */
export type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<Exclude<T[K], undefined>> }
    : T;

/** How a value is named in a message: `null`, `a list`, `a mapping`, or its JSON text. */
export function showValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value);
}

type Message = (input: unknown) => string;

/** A zod error option built from a message of the offending input. */
const says =
  (message: Message) =>
  (issue: { readonly input?: unknown }): string =>
    message(issue.input);

/** How an object's unknown key is refused, given the known keys. */
type UnknownKeyWording = (known: readonly string[]) => string;

const knownSetting: UnknownKeyWording = (known) => `is not a known setting; known: ${known.join(', ')}`;

/**
 * The message parts of an object's refusals, kept on the issue for `config-errors.ts`:
 * `unknown` words an unknown key (the field named is the key), `notMapping` a value that is not
 * a mapping.
 */
export interface SectionWording {
  readonly notMapping?: Message;
  readonly unknown?: UnknownKeyWording;
}

/** A closed mapping: every key it accepts is in `shape`; anything else is refused by name. */
function section<S extends z.ZodRawShape>(
  shape: S,
  wording: SectionWording = {},
): z.ZodObject<S, z.core.$strict> {
  const known = Object.keys(shape);
  const unknown = wording.unknown ?? knownSetting;
  const notMapping = wording.notMapping ?? ((v: unknown) => `must be a mapping, got ${showValue(v)}`);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${unknown(known)}${didYouMean(String(issue.keys[0]), known)}`
        : notMapping(issue.input),
  });
}

/** A whole number from `min` to `max`. */
function whole(min: number, max: number) {
  const error = says((v) => `must be a whole number from ${min} to ${max}, got ${showValue(v)}`);
  return z.int({ error }).min(min, { error }).max(max, { error });
}

/** A string with something other than white space in it. */
function text(what = ''): z.ZodString {
  const error = says((v) => `must be a non-empty string${what}, got ${showValue(v)}`);
  return z.string({ error }).regex(/\S/, { error });
}

/** `true` or `false`. */
function flag(): z.ZodBoolean {
  return z.boolean({ error: says((v) => `must be true or false, got ${showValue(v)}`) });
}

/** A list of `item`. */
function list<T extends z.ZodType>(item: T): z.ZodArray<T> {
  return z.array(item, { error: says((v) => `must be a list, got ${showValue(v)}`) });
}

/** `true`, `false`, or a list of names out of `names`. */
function allOrSome(names: readonly string[], what: string, list: string) {
  const oneOf = z.enum(names as [string, ...string[]], {
    error: says((v) => `must name ${what} (${names.join(', ')}), got ${showValue(v)}`),
  });
  return z.union([z.boolean(), z.array(oneOf)], {
    error: says((v) => `must be true, false or a list of ${list}, got ${showValue(v)}`),
  });
}

/** The key's SHA-256 of an API key entry. */
const sha256Hex = text().regex(/^[0-9a-f]{64}$/, {
  error: "must be the key's SHA-256 as 64 lower-case hex characters (never the key itself)",
});

/** One API key the node accepts as a bearer credential (its hash, never the key). */
export const apiKeySchema = section({
  hash: sha256Hex,
  subject: text(),
  scopes: z
    .union([z.string(), z.array(text())], { error: says((v) => `must be a list, got ${showValue(v)}`) })
    .optional(),
  tenant: text().optional(),
  id: text().optional(),
  expiresAt: whole(0, Number.MAX_SAFE_INTEGER).optional(),
});

/** `auth:`: API keys and the peer nodes whose signed calls are admitted. */
export const authSchema = section({
  apiKeys: list(apiKeySchema).optional(),
  trustedPeers: list(text()).optional(),
});

/** An absolute `http(s)://` URL, written without trailing slashes. */
const httpUrl = text()
  .refine((s) => URL.canParse(s), {
    error: says((v) => `must be an absolute http:// or https:// URL, got ${showValue(v)}`),
  })
  .refine((s) => !URL.canParse(s) || ['http:', 'https:'].includes(new URL(s).protocol), {
    error: says((v) => `must be an http:// or https:// URL, got ${showValue(v)}`),
  })
  .transform((s) => s.replace(/\/+$/, ''));

/** One peer node whose agents this node can call. */
export const peerSchema = section({
  url: httpUrl,
  did: text().optional(),
  token: text().optional(),
});

/** A mapping of names to strings (`env`, `headers`). */
const stringMap = z.record(
  z.string(),
  z.string({ error: says((v) => `must be a string, got ${showValue(v)}`) }),
  {
    error: says((v) => `must be a mapping of names to strings, got ${showValue(v)}`),
  },
);

/**
 * `a2a:`: the A2A face (docs/faces/a2a.md); `push.allowHosts`: webhook hosts push notifications
 * may go to; `agents`: A2A agents bridged as agents; `announce`: whether privileged callers may
 * add more at run time with `bridge.announceA2AAgent`, and to which hosts.
 */
export const a2aSchema = section({
  push: section({ allowHosts: list(text()).optional() }).optional(),
  /** A2A agents the node hosts as bridge agents (docs/faces/a2a.md). */
  agents: list(
    section({
      name: text(),
      url: httpUrl,
      authorization: text().optional(),
      headers: stringMap.optional(),
      unsigned: z.literal('allow').optional(),
    }),
  ).optional(),
  announce: section({
    enabled: flag().optional(),
    allowHosts: list(text()).optional(),
  }).optional(),
});

/**
 * One `mcp.servers` entry: an MCP server bridged as an agent (docs/faces/mcp.md "Bridging MCP
 * servers"): stdio (`command`, `args`, `env`, `cwd`) or Streamable HTTP (`url`, `headers`).
 */
export const mcpServerSchema = section({
  name: text().regex(/^[a-z][a-z0-9_-]{0,62}$/, {
    error: says(
      (v) =>
        `must be lower case letters, digits, _ or - (starting with a letter, at most 63), got ${showValue(v)}`,
    ),
  }),
  command: text().optional(),
  args: list(z.string({ error: says((v) => `must be a string, got ${showValue(v)}`) })).optional(),
  env: stringMap.optional(),
  cwd: text().optional(),
  url: httpUrl.optional(),
  headers: stringMap.optional(),
}).superRefine((entry, ctx) => {
  if ((entry.command === undefined) === (entry.url === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      input: entry,
      message: `needs exactly one of command (a stdio server the node launches) and url (a Streamable HTTP server)`,
    });
    return;
  }
  const misplaced =
    entry.command !== undefined
      ? (['headers'] as const).filter((k) => entry[k] !== undefined)
      : (['args', 'env', 'cwd'] as const).filter((k) => entry[k] !== undefined);
  for (const key of misplaced) {
    ctx.addIssue({
      code: 'custom',
      path: [key],
      input: entry[key],
      message: `goes with ${entry.command !== undefined ? 'url' : 'command'}, not ${entry.command !== undefined ? 'command' : 'url'}`,
    });
  }
});

/**
 * `mcp:`: MCP servers the node bridges as agents (`servers`), and whether privileged callers
 * may add more at run time with `bridge.registerMCPServer` (`register`).
 */
export const mcpSchema = section({
  servers: list(mcpServerSchema)
    .superRefine((servers, ctx) => {
      const seen = new Set<string>();
      servers.forEach((s, i) => {
        if (seen.has(s.name))
          ctx.addIssue({
            code: 'custom',
            path: [i, 'name'],
            input: s.name,
            message: `names a server twice: ${s.name}`,
          });
        seen.add(s.name);
      });
    })
    .optional(),
  register: flag().optional(),
});

/** `tls:`: the certificate and key files (PEM); required on any non-loopback host (D14). */
export const tlsSchema = section({ cert: text(), key: text() });

/** `limits:`: request limits. */
export const limitsSchema = section({
  bodyLimitBytes: whole(1, 1024 ** 3).optional(),
  defaultTimeoutMs: whole(1, 3_600_000).optional(),
  maxInFlight: whole(1, 1_000_000).optional(),
  maxInFlightPerConnection: whole(1, 1_000_000).optional(),
});

/** `metrics:`: `GET /metrics` (docs/observability.md). */
export const metricsSchema = section({
  enabled: flag().optional(),
  public: flag().optional(),
  maxVerbs: whole(1, 100_000).optional(),
  maxTenants: whole(1, 100_000).optional(),
});

/** `logging:`: the node's structured log (docs/observability.md, Logs). */
export const loggingSchema = section({
  level: z
    .enum(LOG_LEVELS, {
      error: says((v) => `must be one of ${LOG_LEVELS.join(', ')}, got ${showValue(v)}`),
    })
    .optional(),
  format: z
    .enum(LOG_FORMATS, {
      error: says((v) => `must be json or pretty, got ${showValue(v)}`),
    })
    .optional(),
  logUserIds: flag().optional(),
});

/** `tracing:`: OpenTelemetry traces over OTLP (docs/observability.md "Traces"). Off by default. */
export const tracingSchema = section({
  enabled: flag().optional(),
  endpoint: httpUrl.optional(),
  protocol: z
    .enum(['http/protobuf', 'http/json'], {
      error: says((v) => `must be http/protobuf or http/json, got ${showValue(v)}`),
    })
    .optional(),
  sampling: z
    .number({ error: says((v) => `must be a number from 0 to 1, got ${showValue(v)}`) })
    .min(0, { error: says((v) => `must be a number from 0 to 1, got ${showValue(v)}`) })
    .max(1, { error: says((v) => `must be a number from 0 to 1, got ${showValue(v)}`) })
    .optional(),
  serviceName: text().optional(),
});

/** An Ed25519 did:key. */
const ed25519DidKey = text().refine((s) => s.startsWith('did:key:z6Mk'), {
  error: says((v) => `must be an Ed25519 did:key (did:key:z6Mk…), got ${showValue(v)}`),
});

/** `capabilities:`: UCAN capability checks (D7; docs/capabilities.md). */
export const capabilitiesSchema = section({
  enabled: flag().optional(),
  roots: z
    .array(ed25519DidKey, { error: says((v) => `must be a list of did:keys, got ${showValue(v)}`) })
    .optional(),
  requireToken: flag().optional(),
  enforce: flag().optional(),
  cacheSize: whole(1, 10_000_000).optional(),
});

// ---- supervision -------------------------------------------------------------------------

/** The root supervisor's id when the configuration names none. */
export const DEFAULT_SUPERVISOR_ID = 'root';
/** The longest restart window accepted: one day. */
const MAX_PERIOD_MS = 86_400_000;

const treeId = text(' (an agent or supervisor id)');
const restart = z.union([z.enum(['permanent', 'transient', 'temporary']), z.boolean()], {
  error: says((v) => `must be permanent, transient, temporary, true or false, got ${showValue(v)}`),
});
const strategy = z.enum(SUPERVISION_STRATEGIES as [string, ...string[]], {
  error: says((v) => `must be one of ${SUPERVISION_STRATEGIES.join(', ')}, got ${showValue(v)}`),
});

/** An agent under a supervisor, as a mapping: `{ id, restart }`. */
const workerSchema = section({
  id: treeId,
  restart: restart.optional(),
  /** Only a supervisor has children; present here, the mapping is a supervisor. */
  children: z.never().optional(),
});

function supervisorShape(root: boolean) {
  const base = {
    id: root ? treeId.default(DEFAULT_SUPERVISOR_ID) : treeId,
    strategy,
    maxRestarts: whole(0, 1_000_000),
    periodMs: whole(1, MAX_PERIOD_MS),
    get children(): z.ZodArray<z.ZodType<TreeChild>> {
      return z
        .array(childSchema, {
          error: says((v) => `must be a non-empty list of agent ids and supervisors, got ${showValue(v)}`),
        })
        .min(1, {
          error: says((v) => `must be a non-empty list of agent ids and supervisors, got ${showValue(v)}`),
        });
    },
  };
  return root ? base : { ...base, restart: restart.optional() };
}

type Restart = boolean | 'permanent' | 'transient' | 'temporary';
/** A child of a tree as checked: an agent id, or a mapping (a supervisor when it has children). */
type TreeChild =
  | string
  | {
      id: string;
      restart?: Restart | undefined;
      children?: TreeChild[] | undefined;
      strategy?: string;
      maxRestarts?: number;
      periodMs?: number;
    };

/** A child in a tree: an agent id, an agent mapping, or a nested supervisor. */
const childSchema: z.ZodType<TreeChild> = z.lazy(() =>
  z
    .union([treeId, section(supervisorShape(false)), workerSchema], {
      error: says(
        (v) =>
          `must be an agent id or a mapping (an agent { id, restart } or a supervisor with children), got ${showValue(v)}`,
      ),
    })
    .meta({ id: 'SupervisionChild' }),
);

/** Each id once in the whole tree: reports the second appearance of an id. */
function uniqueIds(tree: SupervisorInput, ctx: z.core.$RefinementCtx<SupervisorInput>): void {
  const seen = new Set<string>();
  const visit = (id: string, path: (string | number)[]): void => {
    if (seen.has(id)) {
      ctx.addIssue({
        code: 'custom',
        path,
        message: `${JSON.stringify(id)} appears twice in the tree; each agent and supervisor id may appear once`,
      });
    }
    seen.add(id);
  };
  const walk = (node: SupervisorInput, at: (string | number)[]): void => {
    visit(node.id, at.length === 0 ? ['id'] : [...at, 'id']);
    node.children.forEach((child, i) => {
      const path = [...at, 'children', i];
      if (typeof child === 'string') visit(child, path);
      else if (child.children !== undefined) walk({ id: child.id, children: child.children }, path);
      else visit(child.id, [...path, 'id']);
    });
  };
  walk(tree, []);
}

type SupervisorInput = { id: string; children: TreeChild[] };

/** The child as the runtime takes it: an agent id becomes `{ id }`. */
function childSpec(child: TreeChild): SupervisorSpec['children'][number] {
  if (typeof child === 'string') return { id: child };
  if (child.children !== undefined) return supervisorSpec(child as unknown as SupervisorSpec);
  return child.restart === undefined ? { id: child.id } : { id: child.id, restart: child.restart };
}

function supervisorSpec(s: SupervisorSpec): SupervisorSpec {
  return { ...s, children: (s.children as readonly TreeChild[]).map(childSpec) };
}

/** `supervision:`: a supervision tree over the node's agents (docs/supervision.md). */
export const supervisionSchema = section(supervisorShape(true))
  .superRefine((tree, ctx) => {
    uniqueIds(tree, ctx);
  })
  .transform((tree): SupervisorSpec => supervisorSpec(tree as unknown as SupervisorSpec));

// ---- budgets -----------------------------------------------------------------------------

const AMOUNT_HINT = ' (an amount in units, e.g. 0.25)';

/** An amount in units, held in integer micro-units (D12): six decimals at most. */
const amount = z
  .number({ error: `must be a number${AMOUNT_HINT}` })
  .min(0, { error: `must not be negative${AMOUNT_HINT}` })
  .transform((units, ctx) => {
    try {
      return toMicros(units, '-');
    } catch (error) {
      ctx.issues.push({
        code: 'custom',
        input: units,
        message: `${error instanceof Error ? error.message.slice(2) : String(error)}${AMOUNT_HINT}`,
      });
      return z.NEVER;
    }
  });

/** A mapping of user-chosen names to amounts in units. */
const amounts = z.record(z.string().regex(/\S/, { error: 'has an empty name' }), amount, {
  error: 'must be a mapping of names to amounts in units',
});

/** `budgets:`: prices of charged meters and budget limits, in units (docs/effects.md). */
export const budgetsSchema = section(
  {
    prices: z.record(z.string().regex(/\S/, { error: 'has an empty name' }), amount, {
      error: says((v) =>
        v === undefined
          ? 'is required: the price of each charged meter'
          : 'must be a mapping of names to amounts in units',
      ),
    }),
    tenants: amounts.optional(),
    default: amount.optional(),
    principals: amounts.optional(),
  },
  { notMapping: () => 'must be a mapping with prices, tenants, default, principals' },
).transform(({ default: defaultTenant, ...rest }) => ({
  ...rest,
  ...(defaultTenant === undefined ? {} : { defaultTenant }),
}));

// ---- routing -----------------------------------------------------------------------------

const names = z.array(z.string().min(1, { error: 'must be a list of names' }), {
  error: 'must be a list of names',
});
const policyName = z.string({ error: 'must be a policy name' });

/** `fallback_policies:` (the seed's own key): named lists of fallback steps (docs/routing.md). */
export const fallbackPoliciesSchema = z.record(z.string(), names, { error: 'must be a mapping' });

/** `routing.queueForSync`: bounds of the `queue-for-sync` delivery loop. */
export const queueForSyncSchema = (() => {
  const bound = z
    .int({ error: 'must be a whole number ≥ 1' })
    .min(1, { error: 'must be a whole number ≥ 1' });
  return section(
    {
      maxWaitMs: bound.optional(),
      retryMs: bound.optional(),
      maxRetryMs: bound.optional(),
      maxAttempts: bound.optional(),
    },
    {
      notMapping: () => 'must be a mapping',
      unknown: (known) => `is not an option (use ${known.join(', ')})`,
    },
  );
})();

/** `routing:`: the default policy, per-verb policies, target groups, queue-for-sync bounds. */
export const routingSchema = section(
  {
    defaultPolicy: policyName.optional(),
    verbs: z.record(z.string(), policyName, { error: 'must be a mapping' }).optional(),
    groups: z.record(z.string(), names, { error: 'must be a mapping' }).optional(),
    queueForSync: queueForSyncSchema.optional(),
  },
  {
    notMapping: () => 'must be a mapping',
    unknown: (known) => `is not a routing option (use ${known.join(', ')})`,
  },
);

// ---- mesh --------------------------------------------------------------------------------

/** `mesh:`: the libp2p peer of the node (docs/mesh.md, docs/decisions/mesh.md). */
export const meshSchema = section({
  enabled: flag().optional(),
  listen: list(text()).optional(),
  announce: list(text()).optional(),
  bootstrap: list(text()).optional(),
  heartbeatMs: whole(100, 3_600_000).optional(),
  ttlMs: whole(200, 86_400_000).optional(),
  maxMessageBytes: whole(1024, 4 * 1024 * 1024).optional(),
  discoveryTimeoutMs: whole(100, 60_000).optional(),
  followCapabilities: flag().optional(),
  shareTrajectories: flag().optional(),
  rpcIdleTimeoutMs: whole(0, 86_400_000).optional(),
  geo: text()
    .regex(/^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/, {
      error: 'must be a region: letters and digits joined by "-" (e.g. us-east)',
    })
    .max(64, { error: 'must be at most 64 characters' })
    .optional(),
});

// ---- the file ----------------------------------------------------------------------------

/**
 * Every section of `plexus.yaml`, by key. A new capability adds its section here (and to
 * docs/config.md, which a test checks against this schema).
 */
export const NODE_CONFIG_SECTIONS = {
  port: whole(0, 65_535),
  host: text(),
  data: text(),
  dev: flag(),
  demo: allOrSome(DEMO_AGENT_IDS, 'a demo agent', 'demo agent ids'),
  primitives: allOrSome(HYPERSPACE_PRIMITIVES, 'a primitive', 'primitive names'),
  store: z.enum(['sqlite', 'memory'], {
    error: says((v) => `must be sqlite or memory, got ${showValue(v)}`),
  }),
  drainMs: whole(0, 3_600_000),
  tls: tlsSchema,
  auth: authSchema,
  peers: list(peerSchema),
  peerPollMs: whole(10, 3_600_000),
  helloTtlMs: whole(1000, 86_400_000),
  limits: limitsSchema,
  metrics: metricsSchema,
  logging: loggingSchema,
  tracing: tracingSchema,
  capabilities: capabilitiesSchema,
  supervision: supervisionSchema,
  budgets: budgetsSchema,
  fallback_policies: fallbackPoliciesSchema,
  routing: routingSchema,
  a2a: a2aSchema,
  mcp: mcpSchema,
  agents: list(text()),
  mesh: meshSchema,
} as const;

type Sections = typeof NODE_CONFIG_SECTIONS;
type Optional<S> = { [K in keyof S]: z.ZodOptional<S[K] & z.ZodType> };

/** The file as written: every section optional, nothing else accepted. */
export const nodeConfigFileSchema = section(
  Object.fromEntries(
    Object.entries(NODE_CONFIG_SECTIONS).map(([k, s]) => [k, s.optional()]),
  ) as Optional<Sections>,
);

/**
 * `plexus.yaml` checked, as the node takes it: `fallback_policies` and `routing` become one
 * `routing` section (the seed keeps the policies at the top level).
 */
export const nodeConfigSchema = nodeConfigFileSchema.transform(({ fallback_policies, routing, ...rest }) => ({
  ...rest,
  ...(fallback_policies === undefined && routing === undefined
    ? {}
    : {
        routing: {
          ...(fallback_policies === undefined ? {} : { policies: fallback_policies }),
          ...routing,
        },
      }),
}));

/** The contents of `plexus.yaml` once checked; every section is optional. */
export type NodeConfig = DeepReadonly<z.output<typeof nodeConfigSchema>>;
/** How the node stores its event log. */
export type NodeStoreKind = NonNullable<NodeConfig['store']>;
/** One peer node whose agents this node can call. */
export type PeerConfig = DeepReadonly<z.output<typeof peerSchema>>;
/** The TLS certificate and key files (PEM). */
export type TlsConfig = DeepReadonly<z.output<typeof tlsSchema>>;
/** Request limits. */
export type LimitsConfig = DeepReadonly<z.output<typeof limitsSchema>>;
/** The node's structured log: level, format, whether user ids are written. */
export type LoggingConfig = DeepReadonly<z.output<typeof loggingSchema>>;

/** `GET /metrics`: open without a credential, label caps. */
export type MetricsConfig = DeepReadonly<z.output<typeof metricsSchema>>;
/** OpenTelemetry traces: endpoint, protocol, head sampling, service name. */
export type TracingConfig = DeepReadonly<z.output<typeof tracingSchema>>;
/** UCAN capability checks (D7; docs/capabilities.md). */
export type CapabilitiesConfig = DeepReadonly<z.output<typeof capabilitiesSchema>>;
/** `auth:` of the file. */
export type AuthConfig = DeepReadonly<z.output<typeof authSchema>>;
/** Prices and budget limits of the `charges` effect, in micro-units. */
export type BudgetsConfig = DeepReadonly<z.output<typeof budgetsSchema>>;
/** The supervision tree. */
export type SupervisionConfig = DeepReadonly<z.output<typeof supervisionSchema>>;
/** `mesh:` of the file (docs/mesh.md). */
export type MeshConfig = DeepReadonly<z.output<typeof meshSchema>>;
/** Fallback policies, per-verb selection, target groups, queue-for-sync bounds (docs/routing.md). */
export type RoutingConfig = NonNullable<NodeConfig['routing']>;

/** The JSON Schema of `plexus.yaml` (draft 2020-12), for editors and `plexus config schema`. */
export function nodeConfigJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(nodeConfigFileSchema, { io: 'input', unrepresentable: 'any', cycles: 'ref' }),
    title: 'plexus.yaml',
    description: 'The configuration of a Plexus node (docs/config.md).',
  };
}
