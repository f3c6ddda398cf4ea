/**
 * `plexus token issue --subject S [--data DIR | --key FILE] [--ttl 1h] [--scope S]… [--tenant T]
 * [--audience A] [--json]`: issues a node token (an EdDSA JWT signed with the node key, D14)
 * and prints it, so `TOKEN=$(plexus token issue --subject me)` works.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { issueTokenForCli } from '../../security/auth/index.js';
import { DEFAULT_DATA_DIR } from '../../node/node-init.js';
import { nodeKeyPath } from '../../node/node-key.js';
import type { CliIo } from '../io.js';

interface TokenIssueOptions {
  subject: string;
  key?: string;
  data?: string;
  ttl: string;
  scope: string[];
  tenant?: string;
  audience?: string;
  json: boolean;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** Adds `token issue` to the program. */
export function registerToken(program: Command, io: CliIo): void {
  const token = program.command('token').description('issue bearer tokens for a node');
  token
    .command('issue')
    .description("issue a bearer token signed with the node's key (prints the token)")
    .requiredOption('-s, --subject <subject>', 'who the token names (its sub)')
    .option('--data <dir>', `the node's data directory (its node.key signs the token)`, DEFAULT_DATA_DIR)
    .option('--key <file>', 'sign with this key file instead of <data>/node.key')
    .option('--ttl <duration>', 'lifetime: seconds or 15m, 1h, 7d', '1h')
    .option('--scope <scope>', 'a scope to grant (repeat for more)', collect, [])
    .option('--tenant <tenant>', 'bind the token to a tenant')
    .option('--audience <did>', "who accepts it (default: the node's did:key)")
    .option('--json', 'print the token with its claims as JSON', false)
    .action(async (opts: TokenIssueOptions) => {
      const keyFile = resolve(io.cwd, opts.key ?? nodeKeyPath(opts.data ?? DEFAULT_DATA_DIR));
      const issued = await issueTokenForCli({
        keyFile,
        subject: opts.subject,
        ttl: /^\d+$/.test(opts.ttl) ? Number(opts.ttl) : opts.ttl,
        ...(opts.scope.length === 0 ? {} : { scopes: opts.scope }),
        ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }),
        ...(opts.audience === undefined ? {} : { audience: opts.audience }),
      });
      if (opts.json) {
        io.stdout(
          `${JSON.stringify({ ...issued, expiresAtIso: new Date(issued.expiresAt).toISOString() })}\n`,
        );
      } else {
        io.stdout(`${issued.token}\n`);
      }
    });
}
