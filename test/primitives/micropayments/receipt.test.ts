import fc from 'fast-check';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import {
  checkAddress,
  decodePaymentHeader,
  encodePaymentHeader,
  receiptIdOf,
  receiptSigner,
  receiptTypedData,
  type ReceiptMessage,
} from '../../../src/primitives/micropayments/index.js';

const account = privateKeyToAccount(generatePrivateKey());
const receipt: ReceiptMessage = {
  challengeId: 'pay-1',
  payer: account.address,
  payee: privateKeyToAccount(generatePrivateKey()).address,
  amount: 10_000n,
  currency: 'USDC',
  nonce: `0x${'11'.repeat(32)}`,
  expiresAt: 1_773_842_700_000n,
};

describe('payment receipts', () => {
  it('recovers the signer of a viem EIP-712 signature, and nobody from garbage', async () => {
    const signature = await account.signTypedData(receiptTypedData(8453, receipt));
    expect(await receiptSigner(8453, receipt, signature)).toBe(account.address);
    expect(await receiptSigner(8453, { ...receipt, amount: 10_001n }, signature)).not.toBe(account.address);
    expect(await receiptSigner(1, receipt, signature)).not.toBe(account.address);
    expect(await receiptSigner(8453, receipt, `0x${'00'.repeat(65)}`)).toBeUndefined();
  });

  it('gives one receipt id per signed content, different for any changed term', () => {
    const id = receiptIdOf(8453, receipt);
    expect(id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(receiptIdOf(8453, { ...receipt })).toBe(id);
    for (const changed of [
      { ...receipt, amount: 1n },
      { ...receipt, challengeId: 'pay-2' },
      { ...receipt, currency: 'points' },
      { ...receipt, expiresAt: 1n },
    ]) {
      expect(receiptIdOf(8453, changed)).not.toBe(id);
    }
    expect(receiptIdOf(1, receipt)).not.toBe(id);
  });

  it('checks and checksums addresses', () => {
    expect(checkAddress(account.address.toLowerCase(), 'payer')).toBe(account.address);
    expect(() => checkAddress('0x1234', 'payeeAddress')).toThrow(/payeeAddress must be an EVM address/);
  });
});

describe('payment headers', () => {
  it('round-trips any JSON object through base64', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const obj = JSON.parse(JSON.stringify(value)) as JsonObject;
        expect(decodePaymentHeader(encodePaymentHeader(obj), 'X-Payment')).toEqual(obj);
      }),
    );
  });

  it('accepts base64url and refuses what is not base64 of a JSON object', () => {
    const url = Buffer.from('{"a":"~~~"}').toString('base64url');
    expect(decodePaymentHeader(url, 'X-Payment')).toEqual({ a: '~~~' });
    expect(() => decodePaymentHeader('not base64!', 'X-Payment')).toThrow(/X-Payment header must be base64/);
    expect(() => decodePaymentHeader(Buffer.from('nope').toString('base64'), 'X-Payment')).toThrow(
      /not of JSON/,
    );
    expect(() => decodePaymentHeader(Buffer.from('[1]').toString('base64'), 'X-Payment')).toThrow(
      /JSON object/,
    );
    expect(() => decodePaymentHeader('A'.repeat(20_000), 'X-Payment')).toThrow(/longer than/);
  });
});
