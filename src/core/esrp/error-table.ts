/**
 * The ESRP specification's own error table: what each ESRP error code means on HTTP and
 * whether it may be retried (ESRP spec table, D5). Which ESRP code a Plexus code is sent as
 * is the ESRP face's business (`wire/esrp/error-table.ts`).
 */
import type { EsrpErrorCode } from './model.js';

/** One row of {@link ESRP_ERROR_TABLE}. */
export interface EsrpErrorRow {
  /** The HTTP status the ESRP spec gives the code. */
  readonly http: number;
  /** Whether the ESRP spec calls the code retryable. */
  readonly retryable: boolean;
}

/** The ESRP code → HTTP status and retryable flag (ESRP spec table, D5). */
export const ESRP_ERROR_TABLE = {
  BACKEND_UNAVAILABLE: { http: 502, retryable: true },
  TIMEOUT: { http: 408, retryable: true },
  OOM: { http: 507, retryable: true },
  INVALID_INPUT_SCHEMA: { http: 400, retryable: false },
  INVALID_INPUT_SEMANTIC: { http: 400, retryable: false },
  INVALID_INPUT_SIZE: { http: 413, retryable: false },
  CANCELLED: { http: 409, retryable: false },
  UNKNOWN: { http: 500, retryable: false },
} as const satisfies Record<EsrpErrorCode, EsrpErrorRow>;
