/**
 * Where a node may send a request a caller chose (SSRF; docs/decisions/a2a.md A2A-12, A2A-19):
 * an A2A push notification's webhook, an A2A agent announced at run time. `http:` or `https:`
 * only, no credentials in the URL, and the host either loopback (allowed only when the policy
 * says so: a dev node) or on the policy's allow-list. Names are compared as written; an
 * allow-list entry `*.example.com` admits its subdomains.
 */

/** Which hosts a node sends caller-chosen requests to. */
export interface OutboundUrlPolicy {
  /** Admit loopback hosts (127.0.0.0/8, ::1, localhost): a dev node. @default false */
  readonly allowLoopback?: boolean;
  /** Host names (or `*.domain`) requests may go to. @default none */
  readonly allowHosts?: readonly string[];
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** True for a loopback host name (127.0.0.0/8, `[::1]`, `localhost`). */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

function hostAllowed(host: string, allowHosts: readonly string[]): boolean {
  const name = host.toLowerCase();
  return allowHosts.some((entry) => {
    const pattern = entry.toLowerCase();
    return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern;
  });
}

/** How the refusals name the request and the key that allows a host. */
export interface OutboundUrlWording {
  /** `the push notification url`, `the A2A agent's url`. */
  readonly what: string;
  /** `push notifications`, `A2A agents`: the requests, as the subject of a sentence. */
  readonly requests: string;
  /** The `plexus.yaml` key listing allowed hosts (`a2a.push.allowHosts`). */
  readonly configKey: string;
}

/** Why a URL is not admitted: it is not a fair URL (`malformed`), or the policy refuses its host. */
export interface OutboundUrlProblem {
  readonly problem: string;
  readonly kind: 'malformed' | 'refused';
}

/** The URL `text` names when `policy` admits it, else a sentence saying why not and how to allow it. */
export function checkOutboundUrl(
  text: string,
  policy: OutboundUrlPolicy,
  wording: OutboundUrlWording,
): { readonly url: URL } | OutboundUrlProblem {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { kind: 'malformed', problem: `${wording.what} ${JSON.stringify(text)} is not a URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { kind: 'malformed', problem: `${wording.what} must be http or https, not ${url.protocol}` };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      kind: 'malformed',
      problem: `${wording.what} must not carry credentials: use authentication`,
    };
  }
  const loopback = isLoopbackHost(url.hostname);
  if (loopback && policy.allowLoopback === true) return { url };
  if (!loopback && hostAllowed(url.hostname, policy.allowHosts ?? [])) return { url };
  return {
    kind: 'refused',
    problem: loopback
      ? `${wording.requests} to loopback (${url.hostname}) are allowed on a dev node only`
      : `${wording.requests} to ${url.hostname} are not allowed: add it to ${wording.configKey} in plexus.yaml`,
  };
}
