/**
 * `plexus keys generate [--seed-hex HEX] [--out FILE]` and `plexus keys show FILE`.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import {
  encodeKeyFile,
  generateKeyPair,
  identityFromPublicKey,
  keyPairFromSeed,
  readKeyFile,
  toBase64Url,
  writeKeyFile,
  type Ed25519KeyPair,
} from '../../security/index.js';
import type { CliIo } from '../io.js';

/** The lines `keys show` prints for a key: did, peerId, publicKey (base64url). */
export function describeKey(key: Ed25519KeyPair): string {
  const identity = identityFromPublicKey(key.publicKey);
  return `did ${identity.did}\npeerId ${identity.peerId}\npublicKey ${toBase64Url(key.publicKey)}\n`;
}

function keyFromSeedHex(seedHex: string): Ed25519KeyPair {
  if (!/^[0-9a-fA-F]{64}$/.test(seedHex)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `--seed-hex must be 64 hexadecimal characters (a 32-byte Ed25519 seed), got ${seedHex.length} characters`,
    );
  }
  return keyPairFromSeed(seedHex.toLowerCase());
}

/** Adds `keys generate` and `keys show` to the program. */
export function registerKeys(program: Command, io: CliIo): void {
  const keys = program.command('keys').description('create and inspect Ed25519 identity keys');
  keys
    .command('generate')
    .description('create a key; writes a key file (mode 0600) with --out, else prints it')
    .option('--seed-hex <hex>', 'derive the key from this 32-byte seed instead of at random')
    .option('-o, --out <file>', 'write the key file here (refuses to overwrite)')
    .action(async (opts: { seedHex?: string; out?: string }) => {
      const key = opts.seedHex === undefined ? generateKeyPair() : keyFromSeedHex(opts.seedHex);
      if (opts.out === undefined) {
        io.stdout(encodeKeyFile(key));
        return;
      }
      await writeKeyFile(resolve(io.cwd, opts.out), key);
      io.stdout(`wrote ${opts.out}\n${describeKey(key)}`);
    });
  keys
    .command('show')
    .description('print the did, PeerId and public key of a key file')
    .argument('<file>', 'the key file')
    .action(async (file: string) => {
      const { key } = await readKeyFile(resolve(io.cwd, file));
      io.stdout(describeKey(key));
    });
}
