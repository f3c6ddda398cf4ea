/**
 * The node's configuration file, `plexus.yaml`: reading it (YAML, via the `yaml` package)
 * and checking every field with an error that names the field. A configuration error is a
 * `PlexusError` (`INVALID_PARAMS`, or `PARSE_ERROR` for broken YAML), never a stack trace.
 *
 * ```yaml
 * port: 3100                # 0 picks a free port
 * host: 127.0.0.1
 * data: ./.plexus           # relative paths are relative to this file
 * dev: false
 * demo: false              # true, or some of [echo, text, math, demo]
 * primitives: true          # the Hyperspace primitives: true, false, or some of [state, guard, …]
 * store: sqlite             # or memory
 * drainMs: 10000
 * tls: { cert: cert.pem, key: key.pem }   # required on any non-loopback host (D14)
 * auth:
 *   apiKeys:
 *     - { hash: <sha256 hex of the key>, subject: ci, scopes: [jobs:read], tenant: acme }
 *   trustedPeers: [did:key:z6Mk…]   # peer nodes whose signed calls are admitted
 * peers:
 *   - { url: http://127.0.0.1:3101, did: did:key:z6Mk…, token: <bearer for that node> }
 * peerPollMs: 10000
 * helloTtlMs: 300000      # an Emergence HELLO without _x_endpoint expires this long after the last one
 * limits: { bodyLimitBytes: 1048576, defaultTimeoutMs: 30000, maxInFlight: 256, maxInFlightPerConnection: 32 }
 * capabilities: { enabled: false, roots: [did:key:z6Mk…], requireToken: true, enforce: true }
 * budgets:                 # prices of charged meters and budget limits, in units (docs/effects.md)
 *   { prices: { tokens: 0.001 }, tenants: { acme: 5 }, default: 1, principals: { ci: 2 } }
 * fallback_policies: { offline-first: [local-cache, queue-for-sync] }   # docs/routing.md
 * routing: { verbs: { math.evaluate: offline-first }, groups: { primary-region: [http://…] } }
 * supervision:             # a supervision tree over the agents (docs/supervision.md)
 *   { strategy: one-for-all, maxRestarts: 3, periodMs: 60000, children: [echo, text] }
 * agents: [./my-agent.js]   # ES modules exporting SDK agents, hosted by `plexus start` (docs/sdk.md)
 * ```
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { PlexusError } from '../core/errors.js';
import type { ApiKeyEntry } from '../security/auth/index.js';
import { DEMO_AGENT_IDS } from './demo-agents.js';
import { HYPERSPACE_PRIMITIVES } from './hyperspace.js';
import type { SupervisorSpec } from '../runtime/index.js';
import { parseSupervisionConfig } from './supervision-config.js';
import type { BudgetPolicy } from '../runtime/index.js';
import { parseBudgetsConfig } from './budgets-config.js';
import { parseRoutingConfig, type RoutingConfig } from './routing-config.js';

/** The default configuration file name, looked up in the working directory. */
export const DEFAULT_CONFIG_FILE = 'plexus.yaml';

/** How the node stores its event log. */
export type NodeStoreKind = 'sqlite' | 'memory';

/** One peer node whose agents this node can call. */
export interface PeerConfig {
  /** The peer's base URL (`http://…` on loopback, `https://…` elsewhere). */
  readonly url: string;
  /** The peer node's did:key (or PeerId): also admits its signed calls to this node. */
  readonly did?: string;
  /** A bearer token (or API key) the peer accepts. */
  readonly token?: string;
}

/** The TLS certificate and key files (PEM). */
export interface TlsConfig {
  readonly cert: string;
  readonly key: string;
}

/** UCAN capability checks (D7; docs/capabilities.md). */
export interface CapabilitiesConfig {
  /** Check every request's capability token. @default false */
  readonly enabled?: boolean;
  /** did:keys trusted as roots beside the node's own key. @default [] */
  readonly roots?: readonly string[];
  /** Refuse requests without a token even for verbs that declare no scope or effect. @default true */
  readonly requireToken?: boolean;
  /** Refuse what a token does not cover (false: let it through, audited as forced). @default true */
  readonly enforce?: boolean;
  /** Verified chains kept in the cache. @default 4096 */
  readonly cacheSize?: number;
}

/** Request limits. */
export interface LimitsConfig {
  /** The largest request body, bytes (413 beyond). */
  readonly bodyLimitBytes?: number;
  /** The timeout of a request that names none, ms. */
  readonly defaultTimeoutMs?: number;
  /** Most requests in flight on the node; more are answered 429 / −32003 (docs/decisions/overload.md). */
  readonly maxInFlight?: number;
  /** Most requests in flight on one connection; more are answered 429 / −32003. */
  readonly maxInFlightPerConnection?: number;
}

/** The contents of `plexus.yaml`; every field is optional. */
export interface NodeConfig {
  readonly port?: number;
  readonly host?: string;
  /** The data directory (resolved against the file's directory when read from a file). */
  readonly data?: string;
  readonly dev?: boolean;
  /** Host the demo agents: all of them, or the listed agent ids (`echo`, `text`, `math`, `demo`). */
  readonly demo?: boolean | readonly string[];
  /** Host the Hyperspace primitives: all of them (the default), none, or the listed ones. */
  readonly primitives?: boolean | readonly string[];
  readonly store?: NodeStoreKind;
  readonly drainMs?: number;
  readonly tls?: TlsConfig;
  readonly auth?: { readonly apiKeys?: readonly ApiKeyEntry[]; readonly trustedPeers?: readonly string[] };
  readonly peers?: readonly PeerConfig[];
  /** How often peers' agent lists are polled, ms. */
  readonly peerPollMs?: number;
  /** How long an agent registered by HELLO without an endpoint stays registered, ms. */
  readonly helloTtlMs?: number;
  readonly limits?: LimitsConfig;
  readonly capabilities?: CapabilitiesConfig;
  /** A supervision tree over the node's agents (docs/supervision.md). */
  readonly supervision?: SupervisorSpec;
  /** Prices and budget limits of the `charges` effect, in micro-units (docs/effects.md). */
  readonly budgets?: BudgetPolicy;
  /** Fallback policies, per-verb selection, target groups, queue-for-sync bounds (docs/routing.md). */
  readonly routing?: RoutingConfig;
  /**
   * ES modules exporting SDK agents, which `plexus start` imports and hosts (docs/sdk.md);
   * resolved against the file's directory when read from a file.
   */
  readonly agents?: readonly string[];
}

const TOP_FIELDS = [
  'port',
  'host',
  'data',
  'dev',
  'demo',
  'primitives',
  'store',
  'drainMs',
  'tls',
  'auth',
  'peers',
  'peerPollMs',
  'helloTtlMs',
  'limits',
  'capabilities',
  'supervision',
  'budgets',
  'fallback_policies',
  'routing',
  'agents',
] as const;

type Fields = Record<string, unknown>;

function fail(source: string, field: string, message: string): never {
  throw new PlexusError('INVALID_PARAMS', `${source}: "${field}" ${message}`, {
    details: { field },
  });
}

function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value);
}

function object(source: string, field: string, value: unknown, allowed: readonly string[]): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(source, field, `must be a mapping, got ${show(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      fail(
        source,
        field === '' ? key : `${field}.${key}`,
        `is not a known setting; known: ${allowed.join(', ')}`,
      );
    }
  }
  return value as Fields;
}

function integer(source: string, field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    fail(source, field, `must be a whole number from ${min} to ${max}, got ${show(value)}`);
  }
  return value;
}

function text(source: string, field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    fail(source, field, `must be a non-empty string, got ${show(value)}`);
  return value;
}

function flag(source: string, field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') fail(source, field, `must be true or false, got ${show(value)}`);
  return value;
}

function list(source: string, field: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) fail(source, field, `must be a list, got ${show(value)}`);
  return value;
}

function url(source: string, field: string, value: unknown): string {
  const s = text(source, field, value);
  let parsed: URL;
  try {
    parsed = new URL(s);
  } catch {
    fail(source, field, `must be an absolute http:// or https:// URL, got ${show(value)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    fail(source, field, `must be an http:// or https:// URL, got ${show(value)}`);
  }
  return s.replace(/\/+$/, '');
}

function apiKey(source: string, field: string, value: unknown): ApiKeyEntry {
  const o = object(source, field, value, ['hash', 'subject', 'scopes', 'tenant', 'id', 'expiresAt']);
  const hash = text(source, `${field}.hash`, o['hash']);
  if (!/^[0-9a-f]{64}$/.test(hash)) {
    fail(
      source,
      `${field}.hash`,
      "must be the key's SHA-256 as 64 lower-case hex characters (never the key itself)",
    );
  }
  const entry: { -readonly [K in keyof ApiKeyEntry]: ApiKeyEntry[K] } = {
    hash,
    subject: text(source, `${field}.subject`, o['subject']),
  };
  if (o['scopes'] !== undefined) {
    const scopes = o['scopes'];
    entry.scopes =
      typeof scopes === 'string'
        ? scopes
        : list(source, `${field}.scopes`, scopes).map((s, i) => text(source, `${field}.scopes[${i}]`, s));
  }
  if (o['tenant'] !== undefined) entry.tenant = text(source, `${field}.tenant`, o['tenant']);
  if (o['id'] !== undefined) entry.id = text(source, `${field}.id`, o['id']);
  if (o['expiresAt'] !== undefined) {
    entry.expiresAt = integer(source, `${field}.expiresAt`, o['expiresAt'], 0, Number.MAX_SAFE_INTEGER);
  }
  return entry;
}

/**
 * Checks a parsed configuration and returns it typed. Relative paths (`data`, `tls.cert`,
 * `tls.key`) are resolved against `baseDir` when given.
 *
 * @param source names the configuration in error messages (the file path).
 * @throws PlexusError `INVALID_PARAMS` naming the first bad field (`details.field`).
 */
export function parseNodeConfig(value: unknown, source = 'configuration', baseDir?: string): NodeConfig {
  if (value === null || value === undefined) return {};
  const o = object(source, '', value, TOP_FIELDS);
  const at = (p: string): string => (baseDir === undefined ? p : resolve(baseDir, p));
  const config: { -readonly [K in keyof NodeConfig]: NodeConfig[K] } = {};
  if (o['port'] !== undefined) config.port = integer(source, 'port', o['port'], 0, 65_535);
  if (o['host'] !== undefined) config.host = text(source, 'host', o['host']);
  if (o['data'] !== undefined) config.data = at(text(source, 'data', o['data']));
  if (o['dev'] !== undefined) config.dev = flag(source, 'dev', o['dev']);
  if (o['primitives'] !== undefined) {
    const primitives = o['primitives'];
    config.primitives = Array.isArray(primitives)
      ? primitives.map((name, i) => {
          const primitive = text(source, `primitives[${i}]`, name);
          if (!(HYPERSPACE_PRIMITIVES as readonly string[]).includes(primitive)) {
            fail(
              source,
              `primitives[${i}]`,
              `must name a primitive (${HYPERSPACE_PRIMITIVES.join(', ')}), got ${show(primitive)}`,
            );
          }
          return primitive;
        })
      : typeof primitives === 'boolean'
        ? primitives
        : fail(
            source,
            'primitives',
            `must be true, false or a list of primitive names, got ${show(primitives)}`,
          );
  }
  if (o['demo'] !== undefined) {
    const demo = o['demo'];
    config.demo = Array.isArray(demo)
      ? demo.map((id, i) => {
          const agent = text(source, `demo[${i}]`, id);
          if (!(DEMO_AGENT_IDS as readonly string[]).includes(agent)) {
            fail(
              source,
              `demo[${i}]`,
              `must name a demo agent (${DEMO_AGENT_IDS.join(', ')}), got ${show(agent)}`,
            );
          }
          return agent;
        })
      : typeof demo === 'boolean'
        ? demo
        : fail(source, 'demo', `must be true, false or a list of demo agent ids, got ${show(demo)}`);
  }
  if (o['store'] !== undefined) {
    if (o['store'] !== 'sqlite' && o['store'] !== 'memory') {
      fail(source, 'store', `must be sqlite or memory, got ${show(o['store'])}`);
    }
    config.store = o['store'];
  }
  if (o['drainMs'] !== undefined) config.drainMs = integer(source, 'drainMs', o['drainMs'], 0, 3_600_000);
  if (o['tls'] !== undefined) {
    const tls = object(source, 'tls', o['tls'], ['cert', 'key']);
    config.tls = {
      cert: at(text(source, 'tls.cert', tls['cert'])),
      key: at(text(source, 'tls.key', tls['key'])),
    };
  }
  if (o['auth'] !== undefined) {
    const auth = object(source, 'auth', o['auth'], ['apiKeys', 'trustedPeers']);
    config.auth = {
      ...(auth['apiKeys'] === undefined
        ? {}
        : {
            apiKeys: list(source, 'auth.apiKeys', auth['apiKeys']).map((k, i) =>
              apiKey(source, `auth.apiKeys[${i}]`, k),
            ),
          }),
      ...(auth['trustedPeers'] === undefined
        ? {}
        : {
            trustedPeers: list(source, 'auth.trustedPeers', auth['trustedPeers']).map((d, i) =>
              text(source, `auth.trustedPeers[${i}]`, d),
            ),
          }),
    };
  }
  if (o['peers'] !== undefined) {
    config.peers = list(source, 'peers', o['peers']).map((p, i) => {
      const field = `peers[${i}]`;
      const peer = object(source, field, p, ['url', 'did', 'token']);
      return {
        url: url(source, `${field}.url`, peer['url']),
        ...(peer['did'] === undefined ? {} : { did: text(source, `${field}.did`, peer['did']) }),
        ...(peer['token'] === undefined ? {} : { token: text(source, `${field}.token`, peer['token']) }),
      };
    });
  }
  if (o['peerPollMs'] !== undefined) {
    config.peerPollMs = integer(source, 'peerPollMs', o['peerPollMs'], 10, 3_600_000);
  }
  if (o['helloTtlMs'] !== undefined) {
    config.helloTtlMs = integer(source, 'helloTtlMs', o['helloTtlMs'], 1000, 86_400_000);
  }
  if (o['capabilities'] !== undefined) {
    const c = object(source, 'capabilities', o['capabilities'], [
      'enabled',
      'roots',
      'requireToken',
      'enforce',
      'cacheSize',
    ]);
    const caps: { -readonly [K in keyof CapabilitiesConfig]: CapabilitiesConfig[K] } = {};
    if (c['enabled'] !== undefined) caps.enabled = flag(source, 'capabilities.enabled', c['enabled']);
    if (c['requireToken'] !== undefined)
      caps.requireToken = flag(source, 'capabilities.requireToken', c['requireToken']);
    if (c['enforce'] !== undefined) caps.enforce = flag(source, 'capabilities.enforce', c['enforce']);
    if (c['cacheSize'] !== undefined)
      caps.cacheSize = integer(source, 'capabilities.cacheSize', c['cacheSize'], 1, 10_000_000);
    if (c['roots'] !== undefined) {
      const roots = c['roots'];
      if (!Array.isArray(roots))
        fail(source, 'capabilities.roots', `must be a list of did:keys, got ${show(roots)}`);
      caps.roots = roots.map((r, i) => {
        const did = text(source, `capabilities.roots[${i}]`, r);
        if (!did.startsWith('did:key:z6Mk')) {
          fail(
            source,
            `capabilities.roots[${i}]`,
            `must be an Ed25519 did:key (did:key:z6Mk…), got ${show(did)}`,
          );
        }
        return did;
      });
    }
    config.capabilities = caps;
  }
  if (o['supervision'] !== undefined) config.supervision = parseSupervisionConfig(o['supervision'], source);
  if (o['budgets'] !== undefined) config.budgets = parseBudgetsConfig(o['budgets'], source);
  if (o['fallback_policies'] !== undefined || o['routing'] !== undefined) {
    config.routing = parseRoutingConfig(source, o['fallback_policies'], o['routing']);
  }
  if (o['agents'] !== undefined) {
    config.agents = list(source, 'agents', o['agents']).map((f, i) => at(text(source, `agents[${i}]`, f)));
  }
  if (o['limits'] !== undefined) {
    const limits = object(source, 'limits', o['limits'], [
      'bodyLimitBytes',
      'defaultTimeoutMs',
      'maxInFlight',
      'maxInFlightPerConnection',
    ]);
    const l: { -readonly [K in keyof LimitsConfig]: LimitsConfig[K] } = {};
    if (limits['bodyLimitBytes'] !== undefined) {
      l.bodyLimitBytes = integer(source, 'limits.bodyLimitBytes', limits['bodyLimitBytes'], 1, 1024 ** 3);
    }
    if (limits['defaultTimeoutMs'] !== undefined) {
      l.defaultTimeoutMs = integer(
        source,
        'limits.defaultTimeoutMs',
        limits['defaultTimeoutMs'],
        1,
        3_600_000,
      );
    }
    for (const name of ['maxInFlight', 'maxInFlightPerConnection'] as const) {
      if (limits[name] !== undefined) l[name] = integer(source, `limits.${name}`, limits[name], 1, 1_000_000);
    }
    config.limits = l;
  }
  return config;
}

/**
 * Parses `plexus.yaml` text.
 *
 * @throws PlexusError `PARSE_ERROR` naming the line and column of broken YAML;
 *   `INVALID_PARAMS` naming the first bad field.
 */
export function parseNodeConfigText(
  yamlText: string,
  source = DEFAULT_CONFIG_FILE,
  baseDir?: string,
): NodeConfig {
  let value: unknown;
  try {
    value = parseYaml(yamlText, { prettyErrors: true, uniqueKeys: true });
  } catch (error) {
    const where =
      error instanceof YAMLParseError && error.linePos !== undefined
        ? ` at line ${error.linePos[0].line}, column ${error.linePos[0].col}`
        : '';
    const reason = (error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error))
      .replace(/ at line \d+, column \d+:?$/, '')
      .trim();
    throw new PlexusError('PARSE_ERROR', `${source}: invalid YAML${where}: ${reason}`, { cause: error });
  }
  return parseNodeConfig(value, source, baseDir);
}

/**
 * Reads and checks a configuration file; relative paths in it are resolved against the
 * file's directory.
 *
 * @throws PlexusError `NOT_FOUND` when the file does not exist; `INVALID_REQUEST` when it
 *   cannot be read; as {@link parseNodeConfigText}.
 */
export async function loadNodeConfig(path: string): Promise<NodeConfig> {
  let textContent: string;
  try {
    textContent = await readFile(path, 'utf8');
  } catch (cause) {
    const code = (cause as { code?: unknown }).code;
    throw new PlexusError(
      code === 'ENOENT' ? 'NOT_FOUND' : 'INVALID_REQUEST',
      `cannot read the configuration ${path}: ${code === 'ENOENT' ? 'no such file' : String(cause)}`,
      { cause },
    );
  }
  return parseNodeConfigText(textContent, path, dirname(resolve(path)));
}
