/**
 * `plexus ucan revoke [token] --key FILE [--cid CID] [--node URL | --data DIR]`: signs a UCAN
 * revocation (UCAN 0.10 §6.6: `REVOKE:<cid>` signed by an issuer of the token's chain) and
 *
 * - with `--node URL`: posts it to the running node
 *   (`POST /v1/capabilities/revocations`, bearer `--token` / `$PLEXUS_TOKEN`); the token is
 *   refused on every face at once;
 * - otherwise: appends it to the event log of the data directory `--data` (a stopped node; it
 *   takes effect when the node starts).
 *
 * The token to revoke is the leaf of the container given (or `--cid`). When the container is
 * given, the key must be the issuer of one of its links — checked before anything is sent.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import { DEFAULT_DATA_DIR } from '../../node/node-init.js';
import { nodeKeyPath } from '../../node/node-key.js';
import { createRevocations } from '../../runtime/pipeline/revocations.js';
import { identityFromPublicKey, readKeyFile } from '../../security/index.js';
import {
  createRevocation,
  decodeUcan,
  parseCapabilityContainer,
  proofStore,
  type UcanRevocation,
} from '../../security/ucan/index.js';
import { readInput, type CliIo } from '../io.js';
import { nodeJson, nodeTarget } from '../node-client.js';

/** The path of the node's revocation route. */
const REVOCATIONS_PATH = '/v1/capabilities/revocations';

interface RevokeOptions {
  key?: string;
  cid?: string;
  node?: string;
  token?: string;
  data: string;
  json: boolean;
}

async function containerArgument(io: CliIo, value: string | undefined): Promise<string | undefined> {
  if (value === undefined) return undefined;
  if (value === '-') return (await io.readStdin()).trim();
  if (value.startsWith('@')) return (await readInput(io, value.slice(1))).trim();
  return value.trim();
}

/** The CID to revoke, and the issuers of the container's links (to check the key against). */
function target(container: string | undefined, cid: string | undefined): { cid: string; tokens: string[] } {
  if (container === undefined) {
    if (cid === undefined) {
      throw new PlexusError(
        'INVALID_PARAMS',
        'name the token to revoke: give the token (container) or --cid',
      );
    }
    return { cid, tokens: [] };
  }
  const { leaf, proofs } = parseCapabilityContainer(container);
  const tokens = [leaf, ...proofs];
  const leafCid = decodeUcan(leaf).cid;
  if (cid === undefined) return { cid: leafCid, tokens };
  const known = tokens.map((t) => decodeUcan(t).cid);
  if (!known.includes(cid)) {
    throw new PlexusError('INVALID_PARAMS', `--cid ${cid} is not a token of the container given`);
  }
  return { cid, tokens };
}

function checkIssuer(revoker: string, tokens: readonly string[]): void {
  if (tokens.length === 0) return;
  const issuers = tokens.map((t) => decodeUcan(t).payload.iss);
  if (!issuers.includes(revoker)) {
    throw new PlexusError(
      'FORBIDDEN',
      `${revoker} issued no link of this token's chain (issuers: ${[...new Set(issuers)].join(', ')}); only an issuer may revoke it: pass --key with one of their keys`,
    );
  }
}

async function revokeOffline(
  dataDir: string,
  revocation: UcanRevocation,
  tokens: readonly string[],
): Promise<void> {
  const store = proofStore();
  for (const token of tokens) store.add(token);
  const { withDataDirLog } = await import('../../node/data-dir-replay.js');
  await withDataDirLog(dataDir, async (log) => {
    const revocations = createRevocations({ log, resolver: store });
    await revocations.start();
    try {
      await revocations.revoke(revocation);
    } finally {
      await revocations.stop();
    }
  });
}

/** Adds `ucan revoke` to the `ucan` command. */
export function registerUcanRevoke(ucan: Command, io: CliIo): void {
  ucan
    .command('revoke')
    .description('revoke a token you issued a link of: on a running node (--node) or in a data directory')
    .argument('[token]', 'the container whose leaf to revoke, @file, or - for stdin')
    .option('--cid <cid>', 'the CID of the token to revoke (instead of, or within, the container)')
    .option('--key <file>', 'sign with this key file (default <data>/node.key)')
    .option('-n, --node <url>', 'post it to this running node (else: write it to --data)')
    .option('-t, --token <token>', 'bearer credential for --node (default $PLEXUS_TOKEN)')
    .option('--data <dir>', "without --node: the (stopped) node's data directory", DEFAULT_DATA_DIR)
    .option('--json', 'print the revocation as JSON', false)
    .action(async (value: string | undefined, opts: RevokeOptions) => {
      const { cid, tokens } = target(await containerArgument(io, value), opts.cid);
      const key = (await readKeyFile(resolve(io.cwd, opts.key ?? nodeKeyPath(opts.data)))).key;
      const revoker = identityFromPublicKey(key.publicKey).did;
      checkIssuer(revoker, tokens);
      const revocation = createRevocation(key, cid);
      let where: string;
      if (opts.node !== undefined) {
        const node = nodeTarget({ node: opts.node, token: opts.token });
        await nodeJson(node, REVOCATIONS_PATH, `revoke ${cid}`, {
          method: 'POST',
          body: revocation as unknown as JsonObject,
        });
        where = node.url;
      } else {
        await revokeOffline(resolve(io.cwd, opts.data), revocation, tokens);
        where = resolve(io.cwd, opts.data);
      }
      io.stdout(
        opts.json
          ? `${JSON.stringify({ ...revocation, at: where })}\n`
          : `revoked ${cid} (by ${revoker}) at ${where}\n`,
      );
    });
}
