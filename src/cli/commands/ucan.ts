/**
 * `plexus ucan issue|delegate|inspect|verify|revoke`: UCAN 0.10 capability tokens (DESIGN D7) on the
 * command line. `issue` and `delegate` print the capability container (the leaf, then its
 * proofs, comma-separated) ready for an envelope's `capability` field:
 *
 *   ROOT=$(plexus ucan issue --key root.key --audience did:key:z6MkAlice --scope soul:read)
 *   plexus ucan delegate --key alice.key --proof "$ROOT" --audience did:key:z6MkNode --ttl 15m
 *
 * A token argument is the container itself, `@file` for a file holding it, or `-` for stdin.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { normalizeEffects } from '../../core/records/effects.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import { DEFAULT_DATA_DIR } from '../../node/node-init.js';
import { nodeKeyPath } from '../../node/node-key.js';
import { identityFromPublicKey, readKeyFile, type Ed25519KeyPair } from '../../security/index.js';
import {
  assertCovers,
  capabilitiesOf,
  decodeUcan,
  delegateUcan,
  encodeCapabilityContainer,
  parseCapabilityContainer,
  signUcan,
  ucanVerifier,
  verbRequirements,
  verifyUcanSignature,
  type Capabilities,
  type Caveat,
  type Ucan,
} from '../../security/ucan/index.js';
import { readInput, type CliIo } from '../io.js';
import type { CommandOutcome } from '../main.js';
import { registerUcanRevoke } from './ucan-revoke.js';

interface KeyOptions {
  key?: string;
  data: string;
}

interface GrantOptions {
  scope: string[];
  effect: string[];
  resource: string[];
  caveat: string[];
  all: boolean;
  cap?: string;
}

interface IssueOptions extends KeyOptions, GrantOptions {
  audience: string;
  ttl: string;
  expiry: boolean;
  notBefore?: string;
  nonce?: string;
  json: boolean;
}

interface DelegateOptions extends IssueOptions {
  proof: string;
}

interface VerifyOptions {
  audience?: string;
  root: string[];
  data?: string;
  verb: string;
  scope: string[];
  effect: string[];
  tenant?: string;
  session?: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function parseObject(text: string, what: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new PlexusError('INVALID_PARAMS', `${what} must be a JSON object: ${(cause as Error).message}`, {
      cause,
    });
  }
  if (!isJsonObject(value)) throw new PlexusError('INVALID_PARAMS', `${what} must be a JSON object`);
  return value;
}

function grantsOf(opts: GrantOptions): Capabilities | undefined {
  if (opts.cap !== undefined) return parseObject(opts.cap, '--cap') as unknown as Capabilities;
  if (!opts.all && opts.scope.length === 0 && opts.effect.length === 0) return undefined;
  const caveats: Caveat[] = opts.caveat.map((c) => parseObject(c, '--caveat'));
  return capabilitiesOf({
    scopes: opts.scope,
    effects: opts.effect,
    resources: opts.resource,
    all: opts.all,
    ...(caveats.length === 0 ? {} : { caveats }),
  });
}

async function loadKey(io: CliIo, opts: KeyOptions): Promise<Ed25519KeyPair> {
  const file = resolve(io.cwd, opts.key ?? nodeKeyPath(opts.data));
  return (await readKeyFile(file)).key;
}

async function tokenArgument(io: CliIo, value: string | undefined): Promise<string> {
  if (value === undefined || value === '-') return (await io.readStdin()).trim();
  if (value.startsWith('@')) return (await readInput(io, value.slice(1))).trim();
  return value.trim();
}

function timeOption(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text);
  if (!Number.isFinite(ms)) {
    throw new PlexusError('INVALID_PARAMS', `${what} must be an RFC 3339 time or Unix seconds, got ${text}`);
  }
  return ms;
}

function describeToken(ucan: Ucan): JsonObject {
  return {
    cid: ucan.cid,
    signatureValid: verifyUcanSignature(ucan),
    payload: ucan.payload as unknown as JsonObject,
  };
}

function print(io: CliIo, json: boolean, ucan: Ucan, container: string): void {
  io.stdout(json ? `${JSON.stringify({ ...describeToken(ucan), container })}\n` : `${container}\n`);
}

function addGrantOptions(command: Command): Command {
  return command
    .option('--scope <scope>', 'grant an AGENTESE scope, e.g. soul:read (repeat for more)', collect, [])
    .option('--effect <effect>', 'grant an effect, e.g. writes:session/* or reads (repeat)', collect, [])
    .option(
      '--resource <resource>',
      'resources the scopes apply to (default *; e.g. verb/soul.*)',
      collect,
      [],
    )
    .option(
      '--caveat <json>',
      'a caveat object, e.g. {"tenant":"acme"} (repeat: any one may hold)',
      collect,
      [],
    )
    .option('--all', 'grant every ability (*) on the resources', false)
    .option('--cap <json>', 'the raw cap map {resource: {ability: [caveats]}} instead of the flags above')
    .option('--ttl <duration>', 'lifetime: seconds or 15m, 1h, 7d', '1h')
    .option('--no-expiry', 'never expires (exp: null)')
    .option('--not-before <time>', 'not valid before this RFC 3339 time or Unix seconds')
    .option('--nonce <text>', 'the nonce (default: random)')
    .option('--key <file>', 'sign with this key file (default <data>/node.key)')
    .option('--data <dir>', "the node's data directory", DEFAULT_DATA_DIR)
    .option('--json', 'print the token, its CID and payload as JSON', false);
}

function timing(opts: IssueOptions): { expiresAt?: null; ttl?: string; notBefore?: number; nonce?: string } {
  const notBefore = timeOption(opts.notBefore, '--not-before');
  return {
    ...(opts.expiry ? { ttl: opts.ttl } : { expiresAt: null }),
    ...(notBefore === undefined ? {} : { notBefore }),
    ...(opts.nonce === undefined ? {} : { nonce: opts.nonce }),
  };
}

/** Adds `ucan issue`, `ucan delegate`, `ucan inspect`, `ucan verify` and `ucan revoke` to the program. */
export function registerUcan(program: Command, io: CliIo, outcome: CommandOutcome): void {
  const ucan = program
    .command('ucan')
    .description('issue, delegate, inspect, verify and revoke UCAN capability tokens');
  registerUcanRevoke(ucan, io);
  addGrantOptions(
    ucan
      .command('issue')
      .description('issue a root token signed with your key (prints the capability container)')
      .requiredOption('-a, --audience <did>', 'who receives the token (a did:key)'),
  ).action(async (opts: IssueOptions) => {
    const capabilities = grantsOf(opts);
    if (capabilities === undefined) {
      throw new PlexusError('INVALID_PARAMS', 'nothing to grant: give --scope, --effect, --all or --cap');
    }
    const key = await loadKey(io, opts);
    const token = signUcan({ key, audience: opts.audience, capabilities, ...timing(opts) });
    print(io, opts.json, token, encodeCapabilityContainer(token));
  });
  addGrantOptions(
    ucan
      .command('delegate')
      .description('delegate a token you hold to another DID, narrowing it (prints the new container)')
      .requiredOption('-p, --proof <token>', 'the token to delegate (container, @file, or - for stdin)')
      .requiredOption('-a, --audience <did>', 'who receives the delegated token'),
  ).action(async (opts: DelegateOptions) => {
    const key = await loadKey(io, opts);
    const capabilities = grantsOf(opts);
    const t = timing(opts);
    const delegation = delegateUcan({
      key,
      parent: await tokenArgument(io, opts.proof),
      audience: opts.audience,
      ...(capabilities === undefined ? {} : { capabilities }),
      ...(t.expiresAt === null ? { expiresAt: null } : {}),
      ttl: opts.ttl,
      ...(t.notBefore === undefined ? {} : { notBefore: t.notBefore }),
      ...(t.nonce === undefined ? {} : { nonce: t.nonce }),
    });
    print(io, opts.json, delegation.ucan, delegation.container);
  });
  ucan
    .command('inspect')
    .description('decode a token and its proofs without trusting them (prints JSON)')
    .argument('[token]', 'the container, @file, or - for stdin')
    .action(async (value: string | undefined) => {
      const { leaf, proofs } = parseCapabilityContainer(await tokenArgument(io, value));
      const out = {
        leaf: describeToken(decodeUcan(leaf)),
        proofs: proofs.map((p) => describeToken(decodeUcan(p))),
      };
      io.stdout(`${JSON.stringify(out, null, 2)}\n`);
    });
  ucan
    .command('verify')
    .description('verify a token chain for a node, and optionally that it grants scopes/effects')
    .argument('[token]', 'the container, @file, or - for stdin')
    .option('-a, --audience <did>', "the node's DID (default: the did of <data>/node.key)")
    .option('-r, --root <did>', 'a trusted root (repeat; default: the node did)', collect, [])
    .option('--data <dir>', "the node's data directory, for the defaults")
    .option('--verb <name>', 'the verb the scopes are needed for', 'any.verb')
    .option('--scope <scope>', 'a scope the token must grant (repeat)', collect, [])
    .option(
      '--effect <effect>',
      'an effect the token must grant, e.g. writes:session_registry (repeat)',
      collect,
      [],
    )
    .option('--tenant <id>', 'the tenant of the request (for caveats)')
    .option('--session <id>', 'the session of the request (for caveats)')
    .action(async (value: string | undefined, opts: VerifyOptions) => {
      const container = await tokenArgument(io, value);
      const nodeDid =
        opts.data === undefined
          ? undefined
          : identityFromPublicKey((await loadKey(io, { data: opts.data })).publicKey).did;
      const audience = opts.audience ?? nodeDid;
      const roots = opts.root.length > 0 ? opts.root : nodeDid === undefined ? [] : [nodeDid];
      if (audience === undefined || roots.length === 0) {
        throw new PlexusError(
          'INVALID_PARAMS',
          'give --audience and --root, or --data for the node whose key names both',
        );
      }
      const spec: VerbSpec = {
        name: opts.verb,
        version: 1,
        status: 'stable',
        input: true,
        output: true,
        effects: normalizeEffects(opts.effect),
        capabilities: opts.scope,
        category: 'query',
        deterministic: false,
      };
      try {
        const chain = ucanVerifier({ roots, audience }).verifyUncached(container);
        assertCovers(
          chain.capabilities,
          verbRequirements(spec),
          { tenantId: opts.tenant, sessionId: opts.session, charges: spec.effects.charges ?? [] },
          opts.verb,
        );
        io.stdout(
          `valid: ${chain.cid} from ${chain.invoker}, ${chain.links.length} link(s) rooted in ${chain.roots.join(', ')}, ${
            chain.expiresAt === null
              ? 'never expires'
              : `expires ${new Date(chain.expiresAt * 1000).toISOString()}`
          }\n`,
        );
      } catch (error) {
        if (!(error instanceof PlexusError)) throw error;
        io.stdout(`refused: ${error.code}: ${error.message}\n${JSON.stringify(error.details ?? {})}\n`);
        outcome.exitCode = 1;
      }
    });
}
