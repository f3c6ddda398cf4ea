/**
 * The HTTP 402 payment flow (seed 003 §6.3, `payment-route.ts`) as a node face: the priced
 * routes, bodies up to the node's body limit.
 */
import type { Face, FaceFactory } from '../face.js';
import { PAYMENT_FACE, registerPaymentRoutes, type PaymentRoutesInit } from './payment-route.js';

/** Options of {@link paymentFace}: the payee and the priced routes. */
export type PaymentFaceInit = Omit<PaymentRoutesInit, 'bodyLimit'>;

/**
 * The payment face's factory. The node must host the micropayments primitive and the routes'
 * verbs.
 *
 * @throws PlexusError `INVALID_PARAMS` (at `register`) for a bad payee, path, verb or price.
 * @example
 * paymentFace({ payeeAddress: '0x…', routes: [{ path: '/inference', verb: 'demo.infer', priceUsdc: 0.01 }] });
 */
export function paymentFace(init: PaymentFaceInit): FaceFactory {
  return (components): Face => ({
    name: PAYMENT_FACE,
    register: (server) =>
      registerPaymentRoutes(server.http, components, { ...init, bodyLimit: server.options.bodyLimitBytes }),
  });
}
