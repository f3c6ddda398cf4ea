/**
 * Logical targets (seed 002 §6.1): where an envelope asks to be run. The target travels in
 * the core envelope's extension `_x_agentese_target` (the AGENTESE codec writes it from the
 * wire's `target`; any face that carries `_x_` extensions can set it).
 *
 * - `local://<agent>` — an agent hosted by this node (`local://` alone: any local agent
 *   offering the verb);
 * - `http://host:port[/agent]`, `https://…` — a configured peer node (and one of its agents);
 * - `p2p://did:key:…[/agent]` (or the PeerId form `p2p://12D3KooW…[/agent]`) — a mesh peer
 *   reached over libp2p (`/plexus/rpc/1.0.0`, docs/mesh.md) and one of its agents; answered
 *   `UNAVAILABLE` on a node without the mesh face;
 * - `mcp://<server>[/<tool>]` — an MCP server this node bridges (`mcp.servers`; the agent
 *   with id `<server>`, whose card maps tool names to verbs in {@link MCP_BRIDGE_EXTENSION}),
 *   and one of its tools; an MCP server it does not bridge is `UNAVAILABLE`;
 * - `a2a+https://host[:port][/path]` (and `a2a+http://…`) — the A2A agent at that URL this node
 *   bridges (`a2a.agents` or `bridge.announceA2AAgent`; the local agent whose card names the URL
 *   in {@link A2A_BRIDGE_EXTENSION}); an A2A agent it does not bridge is `UNAVAILABLE`;
 * - anything else (`town://…`) — `INVALID_PARAMS` naming the supported schemes.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { identityFromName } from '../../security/identity.js';
import { AGENTESE_EXTENSIONS } from '../../wire/agentese/envelope.js';

/** The extension key carrying the target. */
export const TARGET_EXTENSION = AGENTESE_EXTENSIONS.target;

/** The extension key carrying the fallback policy (a name or an inline chain). */
export const FALLBACK_POLICY_EXTENSION = AGENTESE_EXTENSIONS.fallbackPolicy;

/** The extension key of a remote card naming the peer (its base URL) it was learned from. */
export const REMOTE_PEER_EXTENSION = '_x_plexus_peer';

/**
 * The card extension of an agent bridging an MCP server (docs/decisions/mcp.md MCP-30):
 * `{ server: <name>, tools: { <tool name>: <verb> } }`, read by `mcp://` targets.
 */
export const MCP_BRIDGE_EXTENSION = '_x_plexus_mcp';

/**
 * The card extension of an agent bridging an A2A agent (docs/decisions/a2a.md A2A-20):
 * `{ url: <its base URL, as {@link targetUrl} writes it>, skills: { <skill id>: <verb> } }`,
 * read by `a2a+https://` targets.
 */
export const A2A_BRIDGE_EXTENSION = '_x_plexus_a2a';

/** The extension key of a remote card naming the mesh peer (its PeerId) that announced it. */
export const REMOTE_MESH_PEER_EXTENSION = '_x_plexus_mesh_peer';

/** The target schemes a node routes today. */
export const ROUTED_SCHEMES = ['local', 'http', 'https', 'mcp', 'a2a+https', 'a2a+http'] as const;

/**
 * The target schemes a node recognises but cannot route yet (`mcp`, `a2a` only when the server
 * or agent is not bridged).
 */
export const PENDING_SCHEMES = ['p2p', 'mcp', 'a2a'] as const;

/** A parsed target. */
export type RouteTarget =
  | { readonly scheme: 'local'; readonly text: string; readonly agent?: string }
  | {
      readonly scheme: 'http' | 'https';
      readonly text: string;
      /** The URL without query or fragment, no trailing `/`. */
      readonly url: string;
    }
  | {
      readonly scheme: 'p2p';
      readonly text: string;
      /** The peer's did:key (a PeerId in the target is converted). */
      readonly did: string;
      /** The agent named after the peer (`p2p://did:key:…/<agent>`), when any. */
      readonly agent?: string;
    }
  | {
      readonly scheme: 'mcp';
      readonly text: string;
      readonly rest: string;
      /** The bridged server's name (the agent id). */
      readonly server: string;
      /** The tool's name, when the target names one. */
      readonly tool?: string;
    }
  | {
      readonly scheme: 'a2a';
      readonly text: string;
      /** The A2A agent's base URL (`https://host/path`, as {@link targetUrl} writes it). */
      readonly url: string;
    };

/** One line naming what the router supports, for error messages. */
export const SUPPORTED_TARGETS =
  'local://<agent>, http://host:port[/agent], https://host:port[/agent], p2p://did:key:…[/agent] (with the mesh on), mcp://<server>[/<tool>] for an MCP server this node bridges, a2a+https://host[/path] for an A2A agent this node bridges';

function invalid(text: string, why: string): PlexusError {
  return new PlexusError(
    'INVALID_PARAMS',
    `target ${JSON.stringify(text)} ${why}; supported: ${SUPPORTED_TARGETS}`,
    {
      details: { pointer: '/target', target: text },
    },
  );
}

/**
 * An http(s) URL as targets name it: origin and path, without a trailing `/` (the host lower
 * case, a default port dropped).
 */
export function targetUrl(url: URL): string {
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** `text` parsed as an http(s) URL a target may name. @throws PlexusError `INVALID_PARAMS`. */
function httpTargetUrl(text: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(text, 'is not a valid URL');
  }
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
    throw invalid(text, 'must not carry a query, fragment or credentials');
  }
  return targetUrl(parsed);
}

/**
 * Parses a target string.
 *
 * @throws PlexusError `INVALID_PARAMS` for text without a `scheme://`, an unknown scheme, a
 *   malformed URL or a `p2p://` target that names neither a did:key nor an Ed25519 PeerId.
 */
export function parseTarget(text: string): RouteTarget {
  const at = text.indexOf('://');
  if (at <= 0) throw invalid(text, 'is not of the form scheme://…');
  const scheme = text.slice(0, at).toLowerCase();
  const rest = text.slice(at + 3);
  switch (scheme) {
    case 'local': {
      const agent = rest.replace(/\/+$/, '');
      if (agent.includes('/')) throw invalid(text, 'names more than an agent id after local://');
      return agent === '' ? { scheme, text } : { scheme, text, agent: decodeURIComponent(agent) };
    }
    case 'http':
    case 'https':
      return { scheme, text, url: httpTargetUrl(text, text) };
    case 'a2a+http':
    case 'a2a+https':
      return { scheme: 'a2a', text, url: httpTargetUrl(text, text.slice('a2a+'.length)) };
    case 'p2p': {
      const cut = rest.indexOf('/');
      const peer = cut < 0 ? rest : rest.slice(0, cut);
      const agent = cut < 0 ? '' : decodeURIComponent(rest.slice(cut + 1).replace(/\/+$/, ''));
      const did = p2pDid(peer);
      if (did === undefined || agent.includes('/'))
        throw invalid(
          text,
          'must name a did:key or PeerId, then at most an agent (p2p://did:key:z6Mk…[/agent])',
        );
      return agent === '' ? { scheme, text, did } : { scheme, text, did, agent };
    }
    case 'mcp': {
      const [server = '', ...tool] = rest.replace(/\/+$/, '').split('/');
      if (server === '') throw invalid(text, 'must name a bridged MCP server (mcp://<server>[/<tool>])');
      const name = tool.join('/');
      return {
        scheme,
        text,
        rest,
        server: decodeURIComponent(server),
        ...(name === '' ? {} : { tool: decodeURIComponent(name) }),
      };
    }
    default:
      throw invalid(text, `uses the scheme ${JSON.stringify(scheme)}, which Plexus does not route`);
  }
}

/** The did:key a `p2p://` peer names (a did:key or an Ed25519 PeerId), or `undefined`. */
function p2pDid(peer: string): string | undefined {
  if (!/^(did:key:z[1-9A-HJ-NP-Za-km-z]+|[1-9A-HJ-NP-Za-km-z]{40,60})$/.test(peer)) return undefined;
  try {
    return identityFromName(peer).did;
  } catch {
    return undefined;
  }
}

/**
 * The target of an envelope, or `undefined` when it names none.
 *
 * @throws PlexusError `INVALID_PARAMS` when the target extension is not a string, or what
 *   {@link parseTarget} throws.
 */
export function targetOf(envelope: Envelope): RouteTarget | undefined {
  const value = envelope.extensions?.[TARGET_EXTENSION];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new PlexusError(
      'INVALID_PARAMS',
      `the target must be a non-empty string; supported: ${SUPPORTED_TARGETS}`,
      {
        details: { pointer: '/target' },
      },
    );
  }
  return parseTarget(value);
}

/** The error for a target whose transport this node does not have (p2p, mcp). */
export function pendingTransportError(target: RouteTarget): PlexusError {
  const what =
    target.scheme === 'p2p'
      ? 'needs the libp2p transport, which this node does not have yet (turn the mesh on: mesh.enabled in plexus.yaml, or plexus start --mesh)'
      : target.scheme === 'mcp'
        ? `names an MCP server (${JSON.stringify(target.server)}) this node does not bridge; add it under mcp.servers in plexus.yaml or with bridge.registerMCPServer`
        : target.scheme === 'a2a'
          ? `names an A2A agent (${target.url}) this node does not bridge; add it under a2a.agents in plexus.yaml or with bridge.announceA2AAgent`
          : `has no transport on this node`;
  return new PlexusError(
    'UNAVAILABLE',
    target.scheme === 'mcp' || target.scheme === 'a2a'
      ? `target ${JSON.stringify(target.text)} ${what}`
      : `target ${JSON.stringify(target.text)} ${what}; route with ${ROUTED_SCHEMES.map((s) => `${s}://`).join(', ')} instead`,
    { retryable: false, details: { pointer: '/target', target: target.text, scheme: target.scheme } },
  );
}

/** The fallback policy an envelope names (a name or an inline chain), or `undefined`. */
export function policyNameOf(envelope: Envelope): string | undefined {
  const value = envelope.extensions?.[FALLBACK_POLICY_EXTENSION];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * Which of `peers` (normalised base URLs) an http(s) target URL names: the peer itself, or
 * `<peer>/<agent>`. `undefined` when none.
 */
export function matchPeer(
  peers: ReadonlySet<string>,
  url: string,
): { readonly peer: string; readonly agent?: string } | undefined {
  if (peers.has(url)) return { peer: url };
  const cut = url.lastIndexOf('/');
  const last = url.slice(cut + 1);
  if (cut > 0 && last !== '' && peers.has(url.slice(0, cut))) {
    return { peer: url.slice(0, cut), agent: decodeURIComponent(last) };
  }
  return undefined;
}
