/**
 * The Hyperspace micropayments primitive (seed 003 §6): HTTP 402 challenges, EIP-712 payment
 * receipts verified once (`micropayments.challenge`, `micropayments.verify`), and streaming
 * payment channels (`micropayments.channel.open`, `.pay`, `.close`). Every fact is an event;
 * the challenges, the spent-receipt set and the channels are projections of the log.
 */
import { PlexusError } from '../../core/errors.js';
import { projectionView } from '../../store/projection-view.js';
import { keyedLock } from '../keyed-lock.js';
import { definePrimitive, type Primitive, type PrimitiveComponents } from '../primitive.js';
import { closeHandler, openHandler, payHandler } from './channel-handlers.js';
import { channelsProjection } from './channels-projection.js';
import {
  CHALLENGE_INPUT,
  CHANNEL_STATE_SCHEMA,
  CLOSE_INPUT,
  CLOSE_OUTPUT,
  OPEN_INPUT,
  PAY_CHALLENGE_SCHEMA,
  PAY_INPUT,
  PAY_OUTPUT,
  VERIFY_INPUT,
  VERIFY_OUTPUT,
} from './micropayments-schemas.js';
import type { PayDeps, PaySettings } from './pay-deps.js';
import { challengeHandler, verifyHandler } from './receipt-handlers.js';
import { receiptsProjection } from './receipts-projection.js';

/** Options of the micropayments primitive. */
export interface MicropaymentsInit {
  /** The EIP-712 domain chain id (a domain separator; nothing is sent to a chain). @default 8453 (Base) */
  readonly chainId?: number;
  /** How long a challenge may be paid, ms. @default 300000 (5 min) */
  readonly challengeTtlMs?: number;
  /** The longest `ttlMs` a caller may ask for, ms. @default 3600000 (1 h) */
  readonly maxChallengeTtlMs?: number;
}

/** The projections of the micropayments primitive (for `plexus replay --verify`). */
export const MICROPAYMENTS_PROJECTIONS = [receiptsProjection, channelsProjection] as const;

function settingsOf(init: MicropaymentsInit): PaySettings {
  const chainId = init.chainId ?? 8453;
  const challengeTtlMs = init.challengeTtlMs ?? 300_000;
  const maxChallengeTtlMs = init.maxChallengeTtlMs ?? 3_600_000;
  for (const [name, value] of [
    ['chainId', chainId],
    ['challengeTtlMs', challengeTtlMs],
    ['maxChallengeTtlMs', maxChallengeTtlMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new PlexusError('INVALID_PARAMS', `${name} must be a whole number ≥ 1, got ${String(value)}`);
    }
  }
  if (challengeTtlMs > maxChallengeTtlMs) {
    throw new PlexusError('INVALID_PARAMS', 'challengeTtlMs must not exceed maxChallengeTtlMs');
  }
  return { chainId, challengeTtlMs, maxChallengeTtlMs };
}

/**
 * Creates the micropayments primitive.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad option.
 * @example
 * const pay = micropaymentsPrimitive({ log }, { chainId: 8453 });
 * await pay.start();
 * const runtime = createRuntime({ log, agents: [pay.agent] });
 */
export function micropaymentsPrimitive(
  components: PrimitiveComponents,
  init: MicropaymentsInit = {},
): Primitive {
  const { log } = components;
  const receipts = projectionView({ log, projection: receiptsProjection });
  const channels = projectionView({ log, projection: channelsProjection });
  const deps: PayDeps = {
    log,
    now: components.now ?? Date.now,
    receipts,
    channels,
    lock: keyedLock(),
    settings: settingsOf(init),
  };
  return definePrimitive({
    name: 'micropayments',
    title: 'Hyperspace micropayments',
    views: [receipts, channels],
    methods: [
      {
        method: 'challenge',
        description:
          'Issues a payment challenge (price in points and USDC, payee, nonce, expiry) for an HTTP 402 answer.',
        input: CHALLENGE_INPUT,
        output: PAY_CHALLENGE_SCHEMA,
        category: 'mutation',
        effects: { writes: ['micropayments/challenges'] },
        deterministic: false,
        handler: challengeHandler(deps),
      },
      {
        method: 'verify',
        description:
          'Checks an EIP-712 payment credential against its challenge and spends it once; answers {accepted, receiptId, amount}.',
        input: VERIFY_INPUT,
        output: VERIFY_OUTPUT,
        category: 'mutation',
        effects: { reads: ['micropayments/challenges'], writes: ['micropayments/receipts'] },
        deterministic: false,
        handler: verifyHandler(deps),
      },
      {
        method: 'channel.open',
        description: 'Opens a payment channel with a budget; answers the PayChannelState.',
        input: OPEN_INPUT,
        output: CHANNEL_STATE_SCHEMA,
        category: 'mutation',
        effects: { writes: ['micropayments/channels'] },
        deterministic: false,
        handler: openHandler(deps),
      },
      {
        method: 'channel.pay',
        description: 'Pays from a channel with the next nonce; answers {nonce, remaining}.',
        input: PAY_INPUT,
        output: PAY_OUTPUT,
        category: 'mutation',
        effects: { writes: ['micropayments/channels'] },
        deterministic: false,
        handler: payHandler(deps),
      },
      {
        method: 'channel.close',
        description: 'Closes a channel; answers {totalSpent, refund}.',
        input: CLOSE_INPUT,
        output: CLOSE_OUTPUT,
        category: 'mutation',
        effects: { writes: ['micropayments/channels'] },
        deterministic: false,
        handler: closeHandler(deps),
      },
    ],
  });
}
