/**
 * Building capability maps from AGENTESE words, and delegating a token with a check that the
 * delegation only narrows (DESIGN D7): scopes, resources, time and caveats (budgets included).
 */
import { PlexusError } from '../../core/errors.js';
import { isEffectName } from '../../core/records/effects.js';
import { identityFromPublicKey } from '../identity.js';
import { parseTtl } from '../auth/duration.js';
import {
  abilityCovers,
  addCapability,
  caveatsCovered,
  capabilityEntries,
  effectAbility,
  freezeCapabilities,
  resourceCovers,
  resourceUri,
  scopeAbility,
} from './capability.js';
import { encodeCapabilityContainer, parseCapabilityContainer } from './chain-container.js';
import {
  decodeUcan,
  signUcan,
  type Capabilities,
  type Caveat,
  type SignUcanInit,
  type Ucan,
} from './ucan-token.js';

/** AGENTESE words for a capability map (see {@link capabilitiesOf}). */
export interface GrantInit {
  /** Scopes (`soul:read`, `atelier:*`, `*`), granted on every resource of `resources`. */
  readonly scopes?: readonly string[];
  /**
   * Effects, `effect` or `effect:resource` (`writes:session/*`); a bare effect is granted on
   * every resource of `resources`.
   */
  readonly effects?: readonly string[];
  /** Resources (`*`, `verb/soul.*`, `session/*`, or URIs). @default ['*'] */
  readonly resources?: readonly string[];
  /** Caveats of every capability granted. @default [{}] (none) */
  readonly caveats?: readonly Caveat[];
  /** Grant the top ability `*` on every resource of `resources`. @default false */
  readonly all?: boolean;
}

/**
 * The capability map of AGENTESE scopes, effects and resources.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad scope or effect name, or nothing to grant.
 * @example capabilitiesOf({ scopes: ['soul:read'], effects: ['reads:memory_crystals'] })
 * // { 'agentese:*': { 'soul/read': [{}] }, 'agentese:memory_crystals': { 'effect/reads': [{}] } }
 */
export function capabilitiesOf(init: GrantInit): Capabilities {
  const cap: Record<string, Record<string, Caveat[]>> = {};
  const resources = (
    init.resources === undefined || init.resources.length === 0 ? ['*'] : init.resources
  ).map(resourceUri);
  const caveats = init.caveats ?? [{}];
  for (const r of resources) {
    if (init.all === true) addCapability(cap, r, '*', caveats);
    for (const s of init.scopes ?? []) addCapability(cap, r, scopeAbility(s), caveats);
  }
  for (const e of init.effects ?? []) {
    const colon = e.indexOf(':');
    const name = colon === -1 ? e : e.slice(0, colon);
    if (!isEffectName(name)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `effect ${JSON.stringify(name)} is not one of the nine effects (reads, writes, …)`,
      );
    }
    const targets = colon === -1 ? resources : [resourceUri(e.slice(colon + 1))];
    for (const r of targets) addCapability(cap, r, effectAbility(name), caveats);
  }
  if (Object.keys(cap).length === 0) {
    throw new PlexusError('INVALID_PARAMS', 'nothing to grant: give at least one scope, effect, or "all"');
  }
  return freezeCapabilities(cap);
}

/** Options of {@link delegateUcan}. */
export interface DelegateUcanInit extends Omit<SignUcanInit, 'capabilities' | 'proofs'> {
  /** The token (container) being delegated; `key` must be its audience. */
  readonly parent: string;
  /** The capabilities to delegate. @default everything the parent's leaf grants */
  readonly capabilities?: Capabilities;
}

/** A delegated token and the container that carries it with its whole chain. */
export interface Delegation {
  readonly ucan: Ucan;
  /** `new leaf, parent leaf, parent proofs…` — what to send. */
  readonly container: string;
}

/**
 * Delegates (attenuates) a token: signs a new one with `key` that rests on the parent's
 * leaf. The new token may only narrow: every capability must be held by the parent, its
 * time bounds must lie within the parent's (`exp` defaults to the earlier of now + ttl and
 * the parent's `exp`).
 *
 * @throws PlexusError `INVALID_PARAMS` when `key` is not the parent's audience, or the
 *   delegation would widen a capability or the time bounds; decoding errors of the parent.
 */
export function delegateUcan(init: DelegateUcanInit): Delegation {
  const { leaf: parentText, proofs } = parseCapabilityContainer(init.parent);
  const parent = decodeUcan(parentText);
  const did = identityFromPublicKey(init.key.publicKey).did;
  if (parent.payload.aud !== did) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `this key (${did}) cannot delegate the token: it was issued to ${parent.payload.aud}`,
    );
  }
  const capabilities = init.capabilities ?? parent.payload.cap;
  const held = capabilityEntries(parent.payload.cap);
  for (const entry of capabilityEntries(capabilities)) {
    const covering = held.filter(
      (h) => resourceCovers(h.resource, entry.resource) && abilityCovers(h.ability, entry.ability),
    );
    if (
      covering.length === 0 ||
      !caveatsCovered(
        covering.flatMap((h) => h.caveats),
        entry.caveats,
      )
    ) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `cannot delegate ${entry.ability} on ${entry.resource}${covering.length === 0 ? '' : ' with those caveats'}: the parent token does not hold it`,
        { details: { resource: entry.resource, ability: entry.ability } },
      );
    }
  }
  const now = (init.now ?? Date.now)();
  const parentExpMs = parent.payload.exp === null ? null : parent.payload.exp * 1000;
  let expiresAt = init.expiresAt;
  if (expiresAt === undefined) {
    const wanted = Math.floor(now / 1000) * 1000 + parseTtl(init.ttl ?? 3600) * 1000;
    expiresAt = parentExpMs === null ? wanted : Math.min(wanted, parentExpMs);
  }
  if (parentExpMs !== null && (expiresAt === null || expiresAt > parentExpMs)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `cannot delegate beyond the parent's expiry ${new Date(parentExpMs).toISOString()}`,
    );
  }
  const parentNbfMs = (parent.payload.nbf ?? 0) * 1000;
  const notBefore = init.notBefore ?? (parent.payload.nbf === undefined ? undefined : parentNbfMs);
  if (notBefore !== undefined && notBefore < parentNbfMs) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `cannot delegate before the parent's not-before ${new Date(parentNbfMs).toISOString()}`,
    );
  }
  const ucan = signUcan({
    ...init,
    capabilities,
    expiresAt,
    ...(notBefore === undefined ? {} : { notBefore }),
    proofs: [parent.cid],
  });
  return { ucan, container: encodeCapabilityContainer(ucan, [parent, ...proofs]) };
}
