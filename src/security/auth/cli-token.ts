/**
 * What `plexus token issue` does, without the command line: read the node's key file and
 * issue a token with it.
 */
import { readKeyFile } from '../key-file.js';
import { issueToken, type IssuedToken } from './jwt-issuer.js';

/** Options for {@link issueTokenForCli}. */
export interface IssueTokenForCliInit {
  /** Path of the node's key file (see `readKeyFile`). */
  readonly keyFile: string;
  /** The principal the token names (`sub`). */
  readonly subject: string;
  /**
   * Lifetime: seconds or text such as `"15m"`, `"1h"`, `"7d"`.
   * @default 3600
   */
  readonly ttl?: number | string;
  /** Scopes, as a list or a space-separated string. */
  readonly scopes?: string | readonly string[];
  /**
   * Who accepts the token.
   * @default the node's did:key (from the key file)
   */
  readonly audience?: string | readonly string[];
  /** The tenant the token is bound to. */
  readonly tenant?: string;
  /** The first instant the token is valid, in Unix milliseconds. */
  readonly notBefore?: number;
  /**
   * Read a key file that group or others can access.
   * @default false
   */
  readonly allowInsecurePermissions?: boolean;
  /**
   * The clock, in Unix milliseconds.
   * @default Date.now
   */
  readonly now?: () => number;
  /** Cancels reading and signing. */
  readonly signal?: AbortSignal;
}

/**
 * Reads the node key from `keyFile` and issues a token for `subject` with it.
 *
 * @throws PlexusError whatever `readKeyFile` throws (`NOT_FOUND`, `FORBIDDEN` for a file
 *   others can read, `INVALID_PARAMS` / `INVALID_SEMANTIC` for a bad file, `CANCELLED`) and
 *   whatever {@link issueToken} throws (`INVALID_PARAMS` for a bad subject, scope, tenant,
 *   audience or lifetime).
 * @example
 * const { token, expiresAt } = await issueTokenForCli({ keyFile: '.plexus/node.key', subject: 'alice', ttl: '8h' });
 */
export async function issueTokenForCli(init: IssueTokenForCliInit): Promise<IssuedToken> {
  const { key } = await readKeyFile(init.keyFile, {
    ...(init.allowInsecurePermissions === undefined
      ? {}
      : { allowInsecurePermissions: init.allowInsecurePermissions }),
    ...(init.signal === undefined ? {} : { signal: init.signal }),
  });
  return issueToken({
    key,
    subject: init.subject,
    ...(init.ttl === undefined ? {} : { ttl: init.ttl }),
    ...(init.scopes === undefined ? {} : { scopes: init.scopes }),
    ...(init.audience === undefined ? {} : { audience: init.audience }),
    ...(init.tenant === undefined ? {} : { tenant: init.tenant }),
    ...(init.notBefore === undefined ? {} : { notBefore: init.notBefore }),
    ...(init.now === undefined ? {} : { now: init.now }),
    ...(init.signal === undefined ? {} : { signal: init.signal }),
  });
}
