/**
 * The user's own agents for `plexus start`: the ES modules named by `--agent FILE` and by
 * `agents:` in `plexus.yaml`, imported with `import()`, and the SDK agents they export
 * (see `../sdk/agent-exports.ts` for which exports count) turned into agents a node hosts
 * from its first request on.
 *
 * Every failure — a missing file, a module that does not import, one that exports no agent,
 * two agents with one id — is a `PlexusError` naming the file and the reason, so `start`
 * fails with one line instead of a stack dump.
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { PlexusError, toPlexusError } from '../core/errors.js';
import type { Node } from '../node/index.js';
import type { AgentDefinition } from '../runtime/index.js';
import { agentsExportedBy } from '../sdk/agent-exports.js';
import { agentDefinitionOf } from '../sdk/hosting.js';
import { createPlexus, type Plexus } from '../sdk/plexus.js';
import type { AgentSpec } from '../sdk/verb.js';

/** One agent found in an agent module. */
export interface LoadedAgent {
  readonly spec: AgentSpec;
  /** The module's absolute path. */
  readonly file: string;
  /** The export that holds it (`default`, `greet`, `all[1]`). */
  readonly exportName: string;
}

function failure(file: string, reason: string, cause?: unknown): PlexusError {
  return new PlexusError('INVALID_PARAMS', `cannot load agent module ${file}: ${reason}`, {
    details: { file },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Where `node --check` places a syntax error (`/x/a.js:3`), when it can tell. */
function syntaxErrorPlace(file: string): Promise<string | undefined> {
  return new Promise((done) => {
    execFile(process.execPath, ['--check', file], { timeout: 10_000 }, (error, _stdout, stderr) => {
      if (error === null) {
        done(undefined);
        return;
      }
      const first = stderr.split('\n')[0] ?? '';
      done(/:\d+$/.test(first) ? first : undefined);
    });
  });
}

/** The first place in `file` the error's stack names (`/x/a.js:2:7`). */
function placeInFile(error: unknown, file: string): string | undefined {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  const url = pathToFileURL(file).href;
  for (const line of stack.split('\n')) {
    const at = line.indexOf(url);
    if (at >= 0) {
      const place = /^:\d+(?::\d+)?/.exec(line.slice(at + url.length));
      if (place !== null) return `${file}${place[0]}`;
    }
  }
  return undefined;
}

async function importFailure(file: string, error: unknown): Promise<PlexusError> {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION') {
    return failure(
      file,
      `${message}; Node imports JavaScript (.js, .mjs, .cjs): compile it first, and name the .js file`,
      error,
    );
  }
  if (error instanceof SyntaxError) {
    const place = (await syntaxErrorPlace(file)) ?? placeInFile(error, file);
    const hint = /import statement outside a module|Unexpected token 'export'/.test(message)
      ? ' (an ES module: name it .mjs, or add "type": "module" to its package.json)'
      : '';
    return failure(
      file,
      `syntax error${place === undefined ? '' : ` at ${place}`}: ${message}${hint}`,
      error,
    );
  }
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_UNSUPPORTED_DIR_IMPORT') {
    return failure(file, `an import of the module failed: ${message}`, error);
  }
  const place = placeInFile(error, file);
  const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
  return failure(
    file,
    `it threw while loading${place === undefined ? '' : ` (at ${place})`}: ${name}${toPlexusError(error).message}`,
    error,
  );
}

async function checkFile(file: string): Promise<void> {
  let info;
  try {
    info = await stat(file);
  } catch (cause) {
    const code = (cause as { code?: unknown }).code;
    throw failure(file, code === 'ENOENT' ? 'no such file' : toPlexusError(cause).message, cause);
  }
  if (info.isDirectory()) throw failure(file, 'it is a directory; name the module file (e.g. its index.js)');
}

function noAgent(
  file: string,
  namespace: Readonly<Record<string, unknown>>,
  verbs: readonly string[],
): string {
  const fix =
    "export one, e.g. export default agent('greet', [verb(…)]) with agent and verb from 'plexus/sdk'";
  if (verbs.length > 0) {
    return `it exports verbs (${verbs.join(', ')}) but no agent: group them with agent(id, [verbs]) and export that`;
  }
  if (typeof namespace['default'] === 'function') {
    return `its default export is a function; export the agent itself (what agent(id, verbs) returns), not a factory`;
  }
  const names = Object.keys(namespace);
  return `it exports no agent (${names.length === 0 ? 'no exports' : `exports: ${names.join(', ')}`}); ${fix}`;
}

/** The agents of one module. @throws PlexusError `INVALID_PARAMS` naming the file. */
async function loadOne(file: string): Promise<LoadedAgent[]> {
  await checkFile(file);
  let namespace: Readonly<Record<string, unknown>>;
  try {
    namespace = (await import(pathToFileURL(file).href)) as Readonly<Record<string, unknown>>;
  } catch (error) {
    throw await importFailure(file, error);
  }
  const found = agentsExportedBy(namespace);
  if (found.problems.length > 0) throw failure(file, found.problems.join('; '));
  if (found.agents.length === 0) throw failure(file, noAgent(file, namespace, found.verbExports));
  return found.agents.map((a) => ({ spec: a.spec, file, exportName: a.exportName }));
}

/**
 * Imports the agent modules (absolute paths; one listed twice is imported once) and returns
 * their agents in order.
 *
 * @throws PlexusError `INVALID_PARAMS` naming the file and the reason: no such file, a
 *   directory, a module that fails to import or throws while loading, one that exports no
 *   agent; or naming both places of two different agents with one id.
 */
export async function loadAgentModules(files: readonly string[]): Promise<LoadedAgent[]> {
  const loaded: LoadedAgent[] = [];
  const byId = new Map<string, LoadedAgent>();
  for (const file of [...new Set(files)]) {
    for (const found of await loadOne(file)) {
      const other = byId.get(found.spec.id);
      if (other !== undefined) {
        if (other.spec === found.spec) continue;
        throw new PlexusError(
          'INVALID_PARAMS',
          `two agents have the id "${found.spec.id}": export ${other.exportName} of ${other.file} and export ${found.exportName} of ${found.file}; agent ids must be unique`,
          { details: { agent: found.spec.id, files: [other.file, found.file] } },
        );
      }
      byId.set(found.spec.id, found);
      loaded.push(found);
    }
  }
  return loaded;
}

/**
 * The runtime definitions of SDK agents for a node that is not started yet (so they are
 * hosted before it listens): `emit` writes to the node's log, and a handler's nested
 * `invoke` runs through an SDK instance over the node, made at the first such call.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad card.
 */
export function hostedAgentDefinitions(specs: readonly AgentSpec[], node: () => Node): AgentDefinition[] {
  let plexus: Plexus | undefined;
  const sdk = (): Plexus => (plexus ??= createPlexus({ node: node() }));
  return specs.map((spec) =>
    agentDefinitionOf(spec, {
      log: () => node().log,
      invoke: (verb, input, options) => sdk().invoke(verb, input, options),
    }),
  );
}
