/**
 * JSON Schemas (2020-12) of the micropayments primitive's params and results, with the
 * seed's names (seed 003 §6.2). Amounts are decimal numbers of the currency's unit at the
 * face (converted exactly to micro-units inside, D12).
 */

const AMOUNT = { type: 'number', minimum: 0 } as const;
const ADDRESS = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' } as const;
const HEX32 = { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } as const;
const ID = { type: 'string', minLength: 1, maxLength: 128 } as const;

/** `micropayments.challenge(pricePoints, priceUsdc, payeeAddress)` plus an optional `resource` and `ttlMs`. */
export const CHALLENGE_INPUT = {
  type: 'object',
  required: ['pricePoints', 'priceUsdc', 'payeeAddress'],
  additionalProperties: false,
  properties: {
    pricePoints: AMOUNT,
    priceUsdc: AMOUNT,
    payeeAddress: ADDRESS,
    resource: { type: 'string', minLength: 1, maxLength: 512 },
    ttlMs: { type: 'integer', minimum: 1000 },
  },
} as const;

/** A PayChallenge: what a 402 answer carries in `X-Payment-Required`. */
export const PAY_CHALLENGE_SCHEMA = {
  type: 'object',
  required: [
    'challengeId',
    'nonce',
    'pricePoints',
    'priceUsdc',
    'payeeAddress',
    'currencies',
    'acceptedChains',
    'chainId',
    'issuedAt',
    'expiresAt',
    'eip712',
  ],
  properties: {
    challengeId: { type: 'string' },
    nonce: HEX32,
    pricePoints: AMOUNT,
    priceUsdc: AMOUNT,
    payeeAddress: ADDRESS,
    currencies: { type: 'array', items: { enum: ['USDC', 'points'] } },
    acceptedChains: { type: 'array', items: { type: 'string' } },
    chainId: { type: 'integer' },
    issuedAt: { type: 'string' },
    expiresAt: { type: 'integer' },
    resource: { type: 'string' },
    eip712: {
      type: 'object',
      required: ['domain', 'primaryType', 'types'],
      properties: { domain: { type: 'object' }, primaryType: { type: 'string' }, types: { type: 'object' } },
    },
  },
} as const;

/** A PayCredential. */
export const PAY_CREDENTIAL_SCHEMA = {
  type: 'object',
  required: [
    'challengeId',
    'payer',
    'payee',
    'amount',
    'currency',
    'nonce',
    'expiresAt',
    'chainId',
    'signature',
  ],
  additionalProperties: false,
  properties: {
    challengeId: ID,
    payer: ADDRESS,
    payee: ADDRESS,
    amount: AMOUNT,
    currency: { enum: ['USDC', 'points'] },
    nonce: HEX32,
    expiresAt: { type: 'integer', minimum: 0 },
    chainId: { type: 'integer', minimum: 1 },
    signature: { type: 'string', pattern: '^0x[0-9a-fA-F]{130}$' },
  },
} as const;

/** `micropayments.verify(credential)` plus an optional `resource` the challenge must be bound to. */
export const VERIFY_INPUT = {
  type: 'object',
  required: ['credential'],
  additionalProperties: false,
  properties: {
    credential: PAY_CREDENTIAL_SCHEMA,
    resource: { type: 'string', minLength: 1, maxLength: 512 },
  },
} as const;

/** `{accepted, receiptId, amount}` plus what was checked, and `code` / `reason` when refused. */
export const VERIFY_OUTPUT = {
  type: 'object',
  required: ['accepted', 'receiptId', 'amount', 'currency', 'payer', 'payee', 'challengeId'],
  properties: {
    accepted: { type: 'boolean' },
    receiptId: HEX32,
    amount: AMOUNT,
    currency: { type: 'string' },
    payer: ADDRESS,
    payee: ADDRESS,
    challengeId: { type: 'string' },
    resource: { type: 'string' },
    code: { type: 'string' },
    reason: { type: 'string' },
  },
} as const;

/** `micropayments.channel.open(payee, budget, currency)`. */
export const OPEN_INPUT = {
  type: 'object',
  required: ['payee', 'budget', 'currency'],
  additionalProperties: false,
  properties: {
    payee: { type: 'string', minLength: 1, maxLength: 256 },
    budget: AMOUNT,
    currency: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,15}$' },
  },
} as const;

/** A PayChannelState. */
export const CHANNEL_STATE_SCHEMA = {
  type: 'object',
  required: [
    'channelId',
    'payer',
    'payee',
    'currency',
    'budget',
    'spent',
    'remaining',
    'nonce',
    'status',
    'openedAt',
  ],
  properties: {
    channelId: { type: 'string' },
    payer: { type: 'string' },
    payee: { type: 'string' },
    currency: { type: 'string' },
    budget: AMOUNT,
    spent: AMOUNT,
    remaining: AMOUNT,
    nonce: { type: 'integer', minimum: 0 },
    status: { enum: ['open', 'closed'] },
    openedAt: { type: 'string' },
    closedAt: { type: 'string' },
  },
} as const;

/** `micropayments.channel.pay(channelId, amount, memo)` plus an optional client `nonce`. */
export const PAY_INPUT = {
  type: 'object',
  required: ['channelId', 'amount'],
  additionalProperties: false,
  properties: {
    channelId: ID,
    amount: AMOUNT,
    memo: { type: 'string', maxLength: 500 },
    nonce: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  },
} as const;

/** `{nonce, remaining}` plus `spent` and `channelId`. */
export const PAY_OUTPUT = {
  type: 'object',
  required: ['nonce', 'remaining'],
  properties: {
    nonce: { type: 'integer', minimum: 1 },
    remaining: AMOUNT,
    spent: AMOUNT,
    channelId: { type: 'string' },
  },
} as const;

/** `micropayments.channel.close(channelId)`. */
export const CLOSE_INPUT = {
  type: 'object',
  required: ['channelId'],
  additionalProperties: false,
  properties: { channelId: ID },
} as const;

/** `{totalSpent, refund}` plus `channelId` and the last `nonce`. */
export const CLOSE_OUTPUT = {
  type: 'object',
  required: ['totalSpent', 'refund'],
  properties: {
    totalSpent: AMOUNT,
    refund: AMOUNT,
    channelId: { type: 'string' },
    nonce: { type: 'integer', minimum: 0 },
  },
} as const;
