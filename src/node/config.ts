/**
 * The node's configuration file, `plexus.yaml`: reading it (YAML, via the `yaml` package)
 * and checking it against its schema (`config-schema.ts`; every key in docs/config.md). A
 * configuration error is a `PlexusError` (`INVALID_PARAMS` naming the field, its JSON pointer and
 * its line and column in `cause`; `PARSE_ERROR` for broken YAML), never a stack trace.
 *
 * ```yaml
 * port: 3100                # 0 picks a free port
 * host: 127.0.0.1
 * data: ./.plexus           # relative paths are relative to this file
 * dev: false
 * demo: false              # true, or some of [echo, text, math, demo, conformance]
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
import { LineCounter, parseDocument, YAMLParseError } from 'yaml';
import { PlexusError } from '../core/errors.js';
import { fallbackPolicies } from '../runtime/routing/index.js';
import { configError, type ConfigText } from './config-errors.js';
import { nodeConfigSchema, type NodeConfig } from './config-schema.js';

export {
  type CapabilitiesConfig,
  type LimitsConfig,
  type NodeConfig,
  type NodeStoreKind,
  type PeerConfig,
  type RoutingConfig,
  type TlsConfig,
} from './config-schema.js';

/** The default configuration file name, looked up in the working directory. */
export const DEFAULT_CONFIG_FILE = 'plexus.yaml';

/** `config` with its relative paths (`data`, `tls`, `agents`) resolved against `baseDir`. */
function resolvePaths(config: NodeConfig, baseDir: string): NodeConfig {
  const at = (p: string): string => resolve(baseDir, p);
  return {
    ...config,
    ...(config.data === undefined ? {} : { data: at(config.data) }),
    ...(config.tls === undefined ? {} : { tls: { cert: at(config.tls.cert), key: at(config.tls.key) } }),
    ...(config.agents === undefined ? {} : { agents: config.agents.map(at) }),
  };
}

/** Checks the routing section as the runtime will use it: every step, group and verb mapping. */
function checkRouting(config: NodeConfig, source: string): void {
  if (config.routing === undefined) return;
  try {
    fallbackPolicies(config.routing);
  } catch (error) {
    const e = error as PlexusError;
    throw new PlexusError('INVALID_PARAMS', `${source}: ${e.message}`, {
      cause: e,
      ...(e.details === undefined ? {} : { details: e.details }),
    });
  }
}

function check(value: unknown, source: string, baseDir: string | undefined, text?: ConfigText): NodeConfig {
  if (value === null || value === undefined) return {};
  const checked = nodeConfigSchema.safeParse(value);
  if (!checked.success) throw configError(checked.error, source, text);
  // zod leaves an absent optional key absent: no key holds an explicit `undefined`.
  const config = checked.data as NodeConfig;
  checkRouting(config, source);
  return baseDir === undefined ? config : resolvePaths(config, baseDir);
}

/**
 * Checks a parsed configuration and returns it typed. Relative paths (`data`, `tls.cert`,
 * `tls.key`, `agents`) are resolved against `baseDir` when given.
 *
 * @param source names the configuration in error messages (the file path).
 * @throws PlexusError `INVALID_PARAMS` naming the first bad field (`details.field`; the JSON
 *   pointer in `cause`, a `ConfigProblem`).
 */
export function parseNodeConfig(value: unknown, source = 'configuration', baseDir?: string): NodeConfig {
  return check(value, source, baseDir);
}

/**
 * Parses `plexus.yaml` text.
 *
 * @throws PlexusError `PARSE_ERROR` naming the line and column of broken YAML;
 *   `INVALID_PARAMS` naming the first bad field, with its line and column in `cause`.
 */
export function parseNodeConfigText(
  yamlText: string,
  source = DEFAULT_CONFIG_FILE,
  baseDir?: string,
): NodeConfig {
  const lines = new LineCounter();
  const doc = parseDocument(yamlText, { prettyErrors: true, uniqueKeys: true, lineCounter: lines });
  const error = doc.errors[0];
  if (error !== undefined) {
    const where =
      error instanceof YAMLParseError && error.linePos !== undefined
        ? ` at line ${error.linePos[0].line}, column ${error.linePos[0].col}`
        : '';
    const reason = (error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error))
      .replace(/ at line \d+, column \d+:?$/, '')
      .trim();
    throw new PlexusError('PARSE_ERROR', `${source}: invalid YAML${where}: ${reason}`, { cause: error });
  }
  return check(doc.toJS(), source, baseDir, { doc, lines });
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
