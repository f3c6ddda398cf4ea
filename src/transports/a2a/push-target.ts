/**
 * Where a push notification may go (issue 14 item 2, docs/decisions/a2a.md A2A-12): a webhook
 * URL is a server-side request the caller chooses, so it is checked before a config is stored
 * (SSRF): `http:` or `https:` only, no credentials in the URL, and the host either loopback
 * (allowed only when the policy says so: a dev node) or on the policy's allow-list. Names are
 * compared as written; an allow-list entry `*.example.com` admits its subdomains.
 */
import { RequestMalformedError } from '@a2a-js/sdk/errors';

/** Which webhook hosts a node delivers to. */
export interface PushTargetPolicy {
  /** Admit loopback hosts (127.0.0.0/8, ::1, localhost): a dev node. @default false */
  readonly allowLoopback?: boolean;
  /** Host names (or `*.domain`) deliveries may go to. @default none */
  readonly allowHosts?: readonly string[];
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

function hostAllowed(host: string, allowHosts: readonly string[]): boolean {
  const name = host.toLowerCase();
  return allowHosts.some((entry) => {
    const pattern = entry.toLowerCase();
    return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern;
  });
}

/**
 * Checks a webhook URL against `policy`.
 * @throws RequestMalformedError naming what is wrong and how to allow the host.
 */
export function checkPushUrl(text: string, policy: PushTargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RequestMalformedError(`the push notification url ${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RequestMalformedError(`the push notification url must be http or https, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new RequestMalformedError(
      'the push notification url must not carry credentials: use authentication',
    );
  }
  const loopback = LOOPBACK.test(url.hostname);
  if (loopback && policy.allowLoopback === true) return url;
  if (!loopback && hostAllowed(url.hostname, policy.allowHosts ?? [])) return url;
  throw new RequestMalformedError(
    loopback
      ? `push notifications to loopback (${url.hostname}) are allowed on a dev node only`
      : `push notifications to ${url.hostname} are not allowed: add it to a2a.push.allowHosts in plexus.yaml`,
  );
}
