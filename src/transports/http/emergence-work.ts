/**
 * What Emergence messages mean to the node (seed 000, D4):
 *
 * - HELLO `{capabilities: [...]}` announces the sender: its card is registered with the
 *   sender's id, origin `remote` (the node does not host it).
 * - HELP names the work: `data.verb` when given (the input is `data.input` when present,
 *   otherwise `data` without `verb`); otherwise the one capability of the agent `to`, with
 *   `data` as the input.
 *
 * Emergence capabilities are words (`"translate"`); Plexus verbs have two or three segments
 * (D6). A capability or `data.verb` that is a valid verb name is used as it is; a single word
 * (letters, digits, `_`, any case) becomes `emergence.<word in lower case>`. A verb alias
 * (`state.createSession`, docs/decisions/primitive-names.md) is resolved to its verb first.
 */
import { BROADCAST, type Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { Problem } from '../../core/problem.js';
import type { AgentCapability, AgentCard } from '../../core/records/agent-card.js';
import { parseCapabilitySelector, verbNameProblem } from '../../core/verb-name.js';
import type { Registry } from '../../runtime/agents/registry.js';
import { EMERGENCE_ENDPOINT_KEY, emergenceEndpointProblem } from './emergence-endpoint.js';

/** The namespace single-word Emergence capabilities are put in. */
export const EMERGENCE_VERB_NAMESPACE = 'emergence';

const WORD = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** The Plexus verb of an Emergence capability name, or `undefined` when it cannot be one. */
export function emergenceVerbName(name: string): string | undefined {
  if (verbNameProblem(name) === undefined) return name;
  return WORD.test(name) ? `${EMERGENCE_VERB_NAMESPACE}.${name.toLowerCase()}` : undefined;
}

function invalid(problems: readonly Problem[], what: string): PlexusError {
  const first = problems[0];
  return new PlexusError(
    'INVALID_PARAMS',
    `${what}: ${first === undefined ? 'invalid' : `${first.pointer}: ${first.message}`}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
    { details: { problems: problems.map((p) => ({ pointer: p.pointer, message: p.message })) } },
  );
}

function capabilityOf(item: JsonValue, pointer: string, problems: Problem[]): AgentCapability | undefined {
  const name = typeof item === 'string' ? item : isJsonObject(item) ? item['verb'] : undefined;
  if (typeof name !== 'string') {
    problems.push({
      pointer,
      message: 'a capability is a name ("translate") or {verb, input?, output?, description?}',
    });
    return undefined;
  }
  const verb = emergenceVerbName(name);
  if (verb === undefined) {
    problems.push({
      pointer: typeof item === 'string' ? pointer : `${pointer}/verb`,
      message: `"${name.slice(0, 80)}" is neither a word nor a verb name (namespace.action)`,
    });
    return undefined;
  }
  if (typeof item === 'string') return { verb, input: true, output: true };
  const obj = item as JsonObject;
  const schema = (key: 'input' | 'output'): AgentCapability['input'] => {
    const value = obj[key];
    return value === undefined ? true : (value as AgentCapability['input']);
  };
  return {
    verb,
    input: schema('input'),
    output: schema('output'),
    ...(typeof obj['description'] === 'string' ? { description: obj['description'] } : {}),
  };
}

function text(data: JsonObject, key: string, fallback: string, problems: Problem[]): string {
  const value = data[key];
  if (value === undefined) return fallback;
  if (typeof value === 'string' && value !== '') return value;
  problems.push({ pointer: `/data/${key}`, message: `${key} must be a non-empty string` });
  return fallback;
}

/**
 * The card a HELLO announces: id = `from`; `name`, `version`, `description` from `data`
 * when given (defaults: the id, `0`); tier `L3`; the capabilities of `data.capabilities`;
 * protocol `emergence`; an endpoint when the message names one in `_x_endpoint` (or
 * `data.endpoint`): an https URL, http only on a loopback host; origin `remote`.
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` for a bad HELLO payload.
 */
export function helloCard(message: Envelope): AgentCard {
  const data = isJsonObject(message.data) ? message.data : {};
  const problems: Problem[] = [];
  const raw = data['capabilities'] ?? [];
  const capabilities: AgentCapability[] = [];
  if (!Array.isArray(raw)) {
    problems.push({ pointer: '/data/capabilities', message: 'capabilities must be an array of names' });
  } else {
    raw.forEach((item, i) => {
      const capability = capabilityOf(item, `/data/capabilities/${i}`, problems);
      if (capability !== undefined && !capabilities.some((c) => c.verb === capability.verb)) {
        capabilities.push(capability);
      }
    });
  }
  const name = text(data, 'name', message.from, problems);
  const version = text(data, 'version', '0', problems);
  // Where the agent takes HELPs: `_x_endpoint` (D4 extension), or `data.endpoint`.
  const extension = message.extensions?.[EMERGENCE_ENDPOINT_KEY];
  const [endpoint, pointer] =
    extension === undefined
      ? [data['endpoint'], '/data/endpoint']
      : [extension, `/${EMERGENCE_ENDPOINT_KEY}`];
  let url: string | undefined;
  if (endpoint !== undefined) {
    const problem = emergenceEndpointProblem(endpoint);
    if (problem === undefined) url = endpoint as string;
    else problems.push({ pointer, message: problem });
  }
  if (problems.length > 0) throw invalid(problems, 'invalid HELLO');
  return {
    id: message.from,
    name,
    version,
    tier: 'L3',
    capabilities,
    ...(typeof data['description'] === 'string' ? { description: data['description'] } : {}),
    protocols: ['emergence'],
    ...(url === undefined ? {} : { endpoints: [{ protocol: 'emergence', url }] }),
    origin: 'remote',
  };
}

/**
 * The request envelope a HELP asks for (see the module comment); `resolveVerb` maps a verb
 * alias in `data.verb` to its verb (the runtime's alias table).
 *
 * @throws PlexusError `INVALID_PARAMS` when `data.verb` is not a name or the work cannot be
 *   told (no `data.verb` and `to` is `broadcast`, or an agent with several capabilities);
 *   `NOT_FOUND` for an unknown agent `to`; `UNKNOWN_VERB` when it offers no verb.
 */
export function helpRequest(
  message: Envelope,
  registry: Registry,
  resolveVerb: (name: string) => string = (name) => name,
): Envelope {
  const data = isJsonObject(message.data) ? message.data : {};
  // `_x_` extensions travel on (routing: `_x_agentese_target`, `_x_agentese_fallback_policy`).
  const base = {
    id: message.id,
    kind: 'request' as const,
    from: message.from,
    to: message.to,
    ...(message.extensions === undefined ? {} : { extensions: message.extensions }),
  };
  const named = data['verb'];
  if (named !== undefined) {
    const verb = typeof named === 'string' ? emergenceVerbName(resolveVerb(named)) : undefined;
    if (verb === undefined) {
      throw new PlexusError(
        'INVALID_PARAMS',
        'data.verb must name the work: a word ("translate") or a verb name',
        {
          details: { pointer: '/data/verb' },
        },
      );
    }
    let input: JsonValue;
    if ('input' in data) input = data['input'] ?? null;
    else {
      const rest: JsonObject = { ...data };
      delete rest['verb'];
      input = rest;
    }
    return { ...base, verb, data: input };
  }
  const selected = parseCapabilitySelector(message.to);
  if (selected !== undefined) return { ...base, verb: selected, data };
  if (message.to === BROADCAST) {
    throw new PlexusError('INVALID_PARAMS', 'a HELP to broadcast must name the work in data.verb', {
      details: { pointer: '/data/verb' },
    });
  }
  const card = registry.get(message.to);
  const [only, ...others] = card.capabilities;
  if (only === undefined) {
    throw new PlexusError('UNKNOWN_VERB', `agent ${message.to} offers no verbs`, {
      details: { agent: message.to },
    });
  }
  if (others.length > 0) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `agent ${message.to} offers several verbs (${card.capabilities.map((c) => c.verb).join(', ')}); name one in data.verb`,
      { details: { pointer: '/data/verb' } },
    );
  }
  return { ...base, verb: only.verb, data };
}
