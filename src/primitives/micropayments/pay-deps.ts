/**
 * What the micropayments handlers share: the log, the clock, the live projections, the
 * per-key lock (check-then-append atomic per challenge and per channel), and the options.
 */
import type { HandlerContext } from '../../runtime/index.js';
import type { EventInput, EventLog } from '../../store/event-log.js';
import type { ProjectionView } from '../../store/projection-view.js';
import type { KeyedLock } from '../keyed-lock.js';
import type { ChannelsState } from './channels-projection.js';
import type { ReceiptsState } from './receipts-projection.js';

/** The resolved options of the micropayments primitive. */
export interface PaySettings {
  /** The EIP-712 domain chain id. */
  readonly chainId: number;
  /** How long a challenge may be paid, ms. */
  readonly challengeTtlMs: number;
  /** The longest `ttlMs` a caller may ask for, ms. */
  readonly maxChallengeTtlMs: number;
}

/** The handlers' shared dependencies. */
export interface PayDeps {
  readonly log: EventLog;
  readonly now: () => number;
  readonly receipts: ProjectionView<ReceiptsState>;
  readonly channels: ProjectionView<ChannelsState>;
  readonly lock: KeyedLock;
  readonly settings: PaySettings;
}

/** The causation, tenant and trace of events appended for the job in `ctx`. */
export function eventMeta(ctx: HandlerContext): Omit<EventInput, 'type' | 'data'> {
  const { envelope } = ctx;
  return {
    causation: envelope.id,
    ...(envelope.tenantId === undefined ? {} : { tenant: envelope.tenantId }),
    ...(envelope.traceparent === undefined ? {} : { trace: envelope.traceparent }),
  };
}

/** Who is acting: the authenticated principal, else the caller's agent id. */
export function actorOf(ctx: HandlerContext): string {
  return ctx.principal?.id ?? ctx.caller;
}
