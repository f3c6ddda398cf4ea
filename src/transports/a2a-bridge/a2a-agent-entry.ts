/**
 * One A2A agent the node bridges (issue 14 item 4): an `a2a.agents` entry of `plexus.yaml` or a
 * `bridge.announceA2AAgent` call (docs/decisions/a2a.md A2A-13, A2A-19). The config file's
 * entries are checked by its schema; an announcement is checked here, at the boundary.
 */
import { PlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';

/** One bridged A2A agent. */
export interface A2aAgentEntry {
  /** The Plexus agent id, and the middle segment of its verbs. */
  readonly name: string;
  /** The A2A agent's base URL (its card at `/.well-known/agent-card.json`). */
  readonly url: string;
  /** Sent as `Authorization` on every request to it. */
  readonly authorization?: string;
  /** Sent with every request to it (after `authorization`, which wins). */
  readonly headers?: Readonly<Record<string, string>>;
  /** `allow` accepts a card whose signature does not verify. @default refuse */
  readonly unsigned?: 'allow';
}

/** An announcement (`bridge.announceA2AAgent`): an entry whose name may come from the card. */
export type A2aAnnouncement = Omit<A2aAgentEntry, 'name'> & { readonly name?: string };

/** The pattern an announced agent's name matches: an agent id that is also a fair verb segment. */
export const A2A_AGENT_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;

const FIELDS = ['name', 'url', 'authorization', 'headers', 'unsigned'] as const;

function fail(pointer: string, message: string): never {
  throw new PlexusError('INVALID_PARAMS', message, { details: { pointer } });
}

/**
 * Checks the params of `bridge.announceA2AAgent` (a stored announcement is read back with it too).
 *
 * @throws PlexusError `INVALID_PARAMS` naming the field (its JSON pointer in `details.pointer`).
 */
export function parseA2aAnnouncement(value: unknown): A2aAnnouncement {
  if (!isJsonObject(value))
    fail('', 'bridge.announceA2AAgent takes an object: {url, name?, authorization?, headers?, unsigned?}');
  const v = value as Record<string, unknown>;
  if (v['agentCard'] !== undefined && v['url'] === undefined)
    fail(
      '/agentCard',
      'the node fetches (and verifies) the card itself: give the A2A agent’s base url (its card at /.well-known/agent-card.json) instead of agentCard',
    );
  for (const key of Object.keys(v))
    if (!(FIELDS as readonly string[]).includes(key))
      fail(`/${key}`, `${key} is not a field of an A2A agent announcement; known: ${FIELDS.join(', ')}`);
  const { name, url, authorization, headers, unsigned } = v;
  if (typeof url !== 'string' || url === '')
    fail(
      '/url',
      `url must be the A2A agent's base URL (a string), got ${url === undefined ? 'nothing' : JSON.stringify(url)}`,
    );
  if (name !== undefined && (typeof name !== 'string' || !A2A_AGENT_NAME_PATTERN.test(name)))
    fail(
      '/name',
      `name must match ${A2A_AGENT_NAME_PATTERN.source} (lower case, at most 63 characters), got ${JSON.stringify(name)}`,
    );
  if (authorization !== undefined && (typeof authorization !== 'string' || authorization === ''))
    fail('/authorization', 'authorization must be a non-empty string (sent as the Authorization header)');
  if (unsigned !== undefined && unsigned !== 'allow')
    fail('/unsigned', `unsigned must be "allow" when given, got ${JSON.stringify(unsigned)}`);
  let headerMap: Record<string, string> | undefined;
  if (headers !== undefined) {
    if (!isJsonObject(headers)) fail('/headers', 'headers must be a mapping of header names to strings');
    headerMap = {};
    for (const [k, h] of Object.entries(headers as Record<string, unknown>)) {
      if (typeof h !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) || /[\r\n]/.test(h))
        fail(`/headers/${k}`, `headers.${k} must be a header name with a one-line string value`);
      headerMap[k] = h;
    }
  }
  return {
    url: url.replace(/\/+$/, ''),
    ...(name === undefined ? {} : { name }),
    ...(authorization === undefined ? {} : { authorization }),
    ...(headerMap === undefined ? {} : { headers: headerMap }),
    ...(unsigned === undefined ? {} : { unsigned: 'allow' as const }),
  };
}

/** A stored announcement, which always has its name. @throws PlexusError `INVALID_PARAMS`. */
export function parseA2aAgentEntry(value: unknown): A2aAgentEntry {
  const parsed = parseA2aAnnouncement(value);
  if (parsed.name === undefined) fail('/name', 'a stored A2A agent entry must have its name');
  return { ...parsed, name: parsed.name };
}

/** The headers sent with every request to `entry`'s agent. */
export function entryHeaders(entry: Omit<A2aAgentEntry, 'name'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(entry.headers ?? {})) out[k.toLowerCase()] = v;
  if (entry.authorization !== undefined) out['authorization'] = entry.authorization;
  return out;
}
