/**
 * The typed ESRP v1 records, as the reference implementation (hydra-dynamix/esrp,
 * crate esrp-core) reads them: field names are the wire names, optional fields are absent
 * rather than `null`, and the reference's defaults are filled in.
 */
import type { EsrpJsonValue } from '../canonical/esrp.js';

/** The ESRP protocol version Plexus writes. */
export const ESRP_VERSION = '1.0';

/** The timeout an absent `mode` or `mode.timeout_ms` stands for (the reference's default). */
export const ESRP_DEFAULT_TIMEOUT_MS = 600_000;

/** How an input's or output's `data` is encoded. */
export const ESRP_ENCODINGS = ['utf-8', 'base64', 'path'] as const;
/** One of {@link ESRP_ENCODINGS}. */
export type EsrpEncoding = (typeof ESRP_ENCODINGS)[number];

/** Execution modes. */
export const ESRP_MODE_TYPES = ['sync', 'async'] as const;
/** One of {@link ESRP_MODE_TYPES}. */
export type EsrpModeType = (typeof ESRP_MODE_TYPES)[number];

/** Response statuses. */
export const ESRP_STATUSES = ['succeeded', 'failed', 'accepted'] as const;
/** One of {@link ESRP_STATUSES}. */
export type EsrpStatus = (typeof ESRP_STATUSES)[number];

/** Job states of the ESRP face (D8 maps them onto the A2A states). */
export const ESRP_JOB_STATES = ['queued', 'started', 'succeeded', 'failed', 'cancelled'] as const;
/** One of {@link ESRP_JOB_STATES}. */
export type EsrpJobState = (typeof ESRP_JOB_STATES)[number];

/** The ESRP error codes (D5's seven, and `CANCELLED` for a cancelled job). */
export const ESRP_ERROR_CODES = [
  'BACKEND_UNAVAILABLE',
  'TIMEOUT',
  'OOM',
  'INVALID_INPUT_SCHEMA',
  'INVALID_INPUT_SEMANTIC',
  'INVALID_INPUT_SIZE',
  'CANCELLED',
  'UNKNOWN',
] as const;
/**
 * One of {@link ESRP_ERROR_CODES}: the seed's five, D5's two, and `CANCELLED` for a cancelled
 * job (docs/decisions/traces-and-errors.md), which is no failure of the backend.
 */
export type EsrpErrorCode = (typeof ESRP_ERROR_CODES)[number];

/** Retry strategies an ESRP error may suggest. */
export const ESRP_RETRY_STRATEGIES = ['exponential', 'linear', 'immediate'] as const;
/** One of {@link ESRP_RETRY_STRATEGIES}. */
export type EsrpRetryStrategy = (typeof ESRP_RETRY_STRATEGIES)[number];

/** Artifact kinds. */
export const ESRP_ARTIFACT_KINDS = ['file', 'blob'] as const;
/** One of {@link ESRP_ARTIFACT_KINDS}. */
export type EsrpArtifactKind = (typeof ESRP_ARTIFACT_KINDS)[number];

/** Artifact retention policies. */
export const ESRP_RETENTIONS = ['ephemeral', 'run', 'pinned'] as const;
/** One of {@link ESRP_RETENTIONS}. */
export type EsrpRetention = (typeof ESRP_RETENTIONS)[number];

/** Who sent a request. */
export interface EsrpCaller {
  readonly system: string;
  readonly agent_id?: string;
  readonly run_id?: string;
}

/** The service and operation a request addresses. */
export interface EsrpTarget {
  readonly service: string;
  readonly operation: string;
  readonly variant?: string;
}

/** Sync or async execution with a timeout. */
export interface EsrpMode {
  readonly type: EsrpModeType;
  readonly timeout_ms: number;
}

/** Tracing context. */
export interface EsrpContext {
  readonly trace_id: string;
  readonly span_id: string;
  readonly parent_span_id?: string;
  /** Free-form tags; `null` when absent. */
  readonly tags: EsrpJsonValue;
}

/** One input (or output) of an operation. */
export interface EsrpInput {
  readonly name: string;
  readonly content_type: string;
  readonly data: string;
  readonly encoding: EsrpEncoding;
  /** Free-form metadata; `null` when absent. */
  readonly metadata: EsrpJsonValue;
}

/** One output of an operation (same shape as an input). */
export type EsrpOutput = EsrpInput;

/** A typed ESRP request after the reference's typed parse. */
export interface EsrpRequest {
  readonly esrp_version: string;
  /** Lower-case hyphenated UUID. */
  readonly request_id: string;
  readonly idempotency_key?: string;
  /** RFC 3339 in UTC, as the reference writes it. */
  readonly timestamp: string;
  readonly scope_id?: string;
  readonly causation_id?: string;
  readonly payload_hash?: string;
  readonly caller: EsrpCaller;
  readonly target: EsrpTarget;
  readonly mode: EsrpMode;
  readonly context?: EsrpContext;
  readonly inputs: readonly EsrpInput[];
  /** Free-form parameters; `null` when absent. */
  readonly params: EsrpJsonValue;
  readonly params_schema_ref?: string;
}

/** Response timing. */
export interface EsrpTiming {
  readonly accepted_at?: string;
  readonly started_at?: string;
  readonly finished_at?: string;
  /** Milliseconds; may have a fraction (the reference types it f64). */
  readonly duration_ms?: number;
}

/** A content-addressed artifact. */
export interface EsrpArtifact {
  readonly artifact_id: string;
  readonly kind: EsrpArtifactKind;
  readonly uri: string;
  readonly sha256: string;
  readonly size_bytes: number;
  readonly retention: EsrpRetention;
}

/** The job an async request created. */
export interface EsrpJob {
  readonly job_id: string;
  readonly state: EsrpJobState;
}

/** An ESRP error. */
export interface EsrpError {
  readonly code: EsrpErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly retry_after_ms?: number;
  readonly retry_strategy?: EsrpRetryStrategy;
  readonly max_retries?: number;
  /** Free-form details; `null` when absent. */
  readonly details: EsrpJsonValue;
}

/** A typed ESRP response. `outputs` and `artifacts` are always arrays. */
export interface EsrpResponse {
  readonly esrp_version: string;
  readonly request_id: string;
  readonly status: EsrpStatus;
  readonly timing?: EsrpTiming;
  readonly outputs: readonly EsrpOutput[];
  readonly artifacts: readonly EsrpArtifact[];
  readonly job?: EsrpJob;
  readonly error?: EsrpError;
}
