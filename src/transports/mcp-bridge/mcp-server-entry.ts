/**
 * One MCP server the node bridges (issue 13 item 8): an `mcp.servers` entry of `plexus.yaml`
 * or a `bridge.registerMCPServer` call. Exactly one of `command` (stdio: the node launches
 * it) and `url` (Streamable HTTP) is set.
 */
import { PlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';

/** One bridged MCP server. */
export interface McpServerEntry {
  /** The agent id, and the middle segment of its verbs (`mcp.<name>.<tool>`). */
  readonly name: string;
  /** stdio: the program the node launches (its stdin/stdout speak MCP). */
  readonly command?: string;
  readonly args?: readonly string[];
  /** stdio: variables set for it, over the SDK's default inherited set (PATH, HOME, …). */
  readonly env?: Readonly<Record<string, string>>;
  /** stdio: its working directory. @default the node's */
  readonly cwd?: string;
  /** Streamable HTTP: the server's MCP endpoint (`http://host:port/mcp`). */
  readonly url?: string;
  /** Streamable HTTP: headers sent with every request (`Authorization`, …). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The pattern an entry's name matches: an agent id that is also a fair verb segment. */
export const MCP_SERVER_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;

function fail(pointer: string, message: string): never {
  throw new PlexusError('INVALID_PARAMS', message, { details: { pointer } });
}

function stringRecord(value: unknown, pointer: string): Record<string, string> {
  if (!isJsonObject(value)) fail(pointer, `${pointer.slice(1)} must be a mapping of names to strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string')
      fail(`${pointer}/${k}`, `${pointer.slice(1)}.${k} must be a string, got ${JSON.stringify(v)}`);
    out[k] = v;
  }
  return out;
}

/**
 * Checks an entry given at run time (the config file's entries are checked by its schema with
 * the same rules).
 *
 * @throws PlexusError `INVALID_PARAMS` naming the field (its JSON pointer in `details.pointer`).
 */
export function parseMcpServerEntry(value: unknown): McpServerEntry {
  if (!isJsonObject(value))
    fail(
      '',
      'an MCP server entry must be an object with a name and either command (stdio) or url (Streamable HTTP)',
    );
  const v = value as Record<string, unknown>;
  const known = new Set(['name', 'command', 'args', 'env', 'cwd', 'url', 'headers']);
  for (const key of Object.keys(v))
    if (!known.has(key))
      fail(`/${key}`, `${key} is not a field of an MCP server entry; known: ${[...known].join(', ')}`);
  const name = v['name'];
  if (typeof name !== 'string' || !MCP_SERVER_NAME_PATTERN.test(name))
    fail(
      '/name',
      `name must match ${MCP_SERVER_NAME_PATTERN.source} (lower case, at most 63 characters), got ${JSON.stringify(name)}`,
    );
  const { command, url } = v;
  if ((command === undefined) === (url === undefined))
    fail(
      '',
      `MCP server ${name}: give exactly one of command (a stdio server the node launches) and url (a Streamable HTTP server)`,
    );
  if (command !== undefined) {
    if (typeof command !== 'string' || command === '')
      fail('/command', `MCP server ${name}: command must be a non-empty string`);
    if (v['headers'] !== undefined) fail('/headers', `MCP server ${name}: headers go with url, not command`);
    const args = v['args'];
    if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a !== 'string')))
      fail('/args', `MCP server ${name}: args must be a list of strings`);
    const cwd = v['cwd'];
    if (cwd !== undefined && (typeof cwd !== 'string' || cwd === ''))
      fail('/cwd', `MCP server ${name}: cwd must be a non-empty string`);
    return {
      name,
      command,
      ...(args === undefined ? {} : { args: args as string[] }),
      ...(v['env'] === undefined ? {} : { env: stringRecord(v['env'], '/env') }),
      ...(cwd === undefined ? {} : { cwd }),
    };
  }
  for (const key of ['args', 'env', 'cwd'])
    if (v[key] !== undefined) fail(`/${key}`, `MCP server ${name}: ${key} goes with command, not url`);
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    fail('/url', `MCP server ${name}: url must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
  if (typeof url !== 'string' || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    fail('/url', `MCP server ${name}: url must be an http(s) URL, got ${JSON.stringify(url)}`);
  return {
    name,
    url,
    ...(v['headers'] === undefined ? {} : { headers: stringRecord(v['headers'], '/headers') }),
  };
}

/** One `${NAME}` reference to a variable of the node's environment (MCP-54). */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/**
 * A value that references at least one variable and has `$` only in references: what a
 * run-time registration's `env` and `headers` values must be (MCP-54).
 */
export const REFERENCES_ONLY_PATTERN =
  '^(?:[^$]|\\$\\{[A-Za-z_][A-Za-z0-9_]*\\})*\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}(?:[^$]|\\$\\{[A-Za-z_][A-Za-z0-9_]*\\})*$';

/**
 * Refuses an entry given at run time whose `env` or `headers` hold a literal value (MCP-54):
 * the call's input is written to the append-only log, so secrets must be `${NAME}` references
 * to the node's environment, resolved when the server is connected.
 * @throws PlexusError `INVALID_PARAMS` naming the field.
 */
export function requireReferences(entry: McpServerEntry): void {
  const pattern = new RegExp(REFERENCES_ONLY_PATTERN);
  for (const field of ['env', 'headers'] as const)
    for (const [key, value] of Object.entries(entry[field] ?? {}))
      if (!pattern.test(value))
        fail(
          `/${field}/${key}`,
          `MCP server ${entry.name}: ${field}.${key} must be a \${NAME} reference to the node's environment (e.g. "\${${key.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}}" or "Bearer \${TOKEN}"), not a literal value: what is registered at run time is kept in the event log`,
        );
}

/**
 * `entry` with each `${NAME}` in its `env` and `headers` values replaced by the variable of
 * `environment` (MCP-54), done when the server is connected.
 * @throws PlexusError `UNAVAILABLE` naming the field and a variable that is not set.
 */
export function resolveReferences(
  entry: McpServerEntry,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): McpServerEntry {
  const resolve = (field: 'env' | 'headers'): Record<string, string> | undefined => {
    const given = entry[field];
    if (given === undefined) return undefined;
    return Object.fromEntries(
      Object.entries(given).map(([key, value]) => [
        key,
        value.replace(REFERENCE, (_ref, name: string) => {
          const found = environment[name];
          if (found === undefined)
            throw new PlexusError(
              'UNAVAILABLE',
              `MCP server ${entry.name}: ${field}.${key} refers to \${${name}}, which is not set in the node's environment`,
              { details: { pointer: `/${field}/${key}`, variable: name } },
            );
          return found;
        }),
      ]),
    );
  };
  const env = resolve('env');
  const headers = resolve('headers');
  return { ...entry, ...(env === undefined ? {} : { env }), ...(headers === undefined ? {} : { headers }) };
}

/** Where the entry's server is, for logs and messages (never its env or headers). */
export function describeEntry(entry: McpServerEntry): string {
  return entry.url ?? [entry.command ?? '', ...(entry.args ?? [])].join(' ');
}
