/**
 * A runtime with the micropayments primitive, a settable clock, and a viem wallet to pay with.
 */
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Envelope } from '../../../src/core/envelope.js';
import type { ErrorData } from '../../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import {
  credentialOf,
  micropaymentsPrimitive,
  receiptFor,
  receiptTypedData,
  type ChallengeTerms,
  type MicropaymentsInit,
  type PayCredential,
  type PaymentCurrency,
  type ReceiptMessage,
} from '../../../src/primitives/micropayments/index.js';
import type { Primitive } from '../../../src/primitives/primitive.js';
import type { InvocationContext, Runtime } from '../../../src/runtime/index.js';
import type { EventLog } from '../../../src/store/index.js';
import { startPrimitiveHost } from '../../support/primitive-harness.js';

/** The payee of the tests. */
export const PAYEE = privateKeyToAccount(generatePrivateKey()).address;

/** What a micropayments harness gives a test. */
export interface PayHarness {
  readonly log: EventLog;
  readonly runtime: Runtime;
  readonly pay: Primitive;
  readonly clock: { t: number };
  /** Invokes a seed method (`micropayments.channel.open`) with a fresh idempotency key. */
  call(method: string, data: JsonValue, context?: Partial<InvocationContext>): Promise<Envelope>;
  ok(method: string, data: JsonValue, context?: Partial<InvocationContext>): Promise<JsonObject>;
  fail(method: string, data: JsonValue, context?: Partial<InvocationContext>): Promise<ErrorData>;
  close(keepLog?: boolean): Promise<void>;
}

/** Starts the log (when not started), the primitive and a runtime. */
export async function startPayHarness(log: EventLog, init: MicropaymentsInit = {}): Promise<PayHarness> {
  const clock = { t: Date.UTC(2026, 2, 18, 14) };
  const host = await startPrimitiveHost({
    log: { log },
    from: 'did:example:payer',
    address: 'capability',
    primitives: (l) => [micropaymentsPrimitive({ log: l, now: () => clock.t }, init)],
  });
  const call = (
    method: string,
    data: JsonValue,
    context: Partial<InvocationContext> = {},
  ): Promise<Envelope> => host.invoke(method, data, { context });
  return {
    log,
    runtime: host.runtime,
    pay: host.primitives[0] as Primitive,
    clock,
    call,
    ok: (method, data, context = {}) => host.ok(method, data, { context }),
    fail: (method, data, context = {}) => host.fail(method, data, { context }),
    close: (keepLog = false) => host.close({ keepLog }),
  };
}

/** A payer with a local key. */
export interface Wallet {
  readonly account: PrivateKeyAccount;
  /** Signs `receipt` (EIP-712, viem) and answers the credential. */
  sign(chainId: number, receipt: ReceiptMessage): Promise<PayCredential>;
  /** Signs the receipt that pays `challenge` in `currency`, after `tamper` changes it. */
  pay(
    challenge: JsonObject,
    currency?: PaymentCurrency,
    tamper?: (r: ReceiptMessage) => ReceiptMessage,
  ): Promise<PayCredential>;
}

/** A new wallet. */
export function wallet(): Wallet {
  const account = privateKeyToAccount(generatePrivateKey());
  const sign = async (chainId: number, receipt: ReceiptMessage): Promise<PayCredential> => {
    const signature = await account.signTypedData(receiptTypedData(chainId, receipt));
    return credentialOf(chainId, receipt, signature);
  };
  return {
    account,
    sign,
    async pay(challenge, currency = 'USDC', tamper = (r) => r) {
      const terms = challenge as unknown as ChallengeTerms;
      return sign(terms.chainId, tamper(receiptFor(terms, account.address, currency)));
    },
  };
}
