/**
 * When a node may run without authentication (DESIGN D14): only a listener bound to a
 * loopback address, started with `--dev`. `--dev` on any other address leaves auth on.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Where a node listens and whether it runs in dev mode. */
export interface AuthPolicyInit {
  /** The host or address the listener binds (`127.0.0.1`, `::1`, `localhost`, `0.0.0.0`, …). */
  readonly host: string;
  /** Whether the node was started with `--dev`. */
  readonly dev: boolean;
}

/** The decision of {@link authPolicy}. */
export interface AuthPolicy {
  /** True when every request must carry a credential. */
  readonly required: boolean;
  /** One line for the startup log saying why. */
  readonly reason: string;
}

/**
 * True when `host` names only the loopback interface: `localhost`, any `127.0.0.0/8`
 * address, `::1` (in any spelling, bracketed or not) or an IPv4-mapped loopback
 * (`::ffff:127.0.0.1`). The wildcard addresses (`0.0.0.0`, `::`, empty) are not loopback.
 */
export function isLoopbackHost(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === 'localhost' || h === 'localhost.') return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (isIPv6(h)) {
    const mapped = /^(?:0{0,4}:){0,5}(?:0{0,4}:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    if (mapped !== null) return isIPv4(mapped[1] as string) && (mapped[1] as string).startsWith('127.');
    return expandIPv6(h) === '0000:0000:0000:0000:0000:0000:0000:0001';
  }
  return false;
}

function expandIPv6(h: string): string {
  const halves = h.split('::');
  const head = halves[0] ?? '';
  const tail = halves[1];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const middle = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((g) => g.padStart(4, '0')).join(':');
}

/**
 * Decides whether auth is on (D14): off only for a loopback listener in dev mode; on for
 * everything else — including `--dev` on a non-loopback address, which the reason calls out
 * so the node can log it.
 */
export function authPolicy(init: AuthPolicyInit): AuthPolicy {
  const loopback = isLoopbackHost(init.host);
  if (init.dev && loopback) {
    return {
      required: false,
      reason: `auth is off: dev mode on loopback (${init.host}); requests without credentials run as "anonymous"`,
    };
  }
  if (init.dev) {
    return {
      required: true,
      reason: `auth is on: --dev turns auth off only on a loopback address, and ${init.host === '' ? 'all interfaces' : init.host} is not one; bind to 127.0.0.1 to run without auth`,
    };
  }
  return { required: true, reason: 'auth is on: every request needs a bearer token or an API key' };
}

/**
 * True when every request must authenticate: see {@link authPolicy}.
 *
 * @example authRequired({ host: '127.0.0.1', dev: true }) // false
 * @example authRequired({ host: '0.0.0.0', dev: true })   // true
 */
export function authRequired(init: AuthPolicyInit): boolean {
  return authPolicy(init).required;
}
