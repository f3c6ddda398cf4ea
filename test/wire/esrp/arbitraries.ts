/** fast-check generators of valid ESRP v1 requests and responses (wire form, before the typed parse). */
import fc from 'fast-check';
import { ESRP_ERROR_TABLE } from '../../../src/core/esrp/error-table.js';
import { ESRP_ERROR_CODES } from '../../../src/core/esrp/model.js';

const hex = (n: number): fc.Arbitrary<string> => fc.stringMatching(new RegExp(`^[0-9a-fA-F]{${n}}$`));

/** A UUID in any of the forms the reference reads, in any letter case. */
export const uuid = fc
  .tuple(hex(8), hex(4), hex(4), hex(4), hex(12), fc.constantFrom('hyphenated', 'simple', 'braced', 'urn'))
  .map(([a, b, c, d, e, form]) => {
    const h = `${a}-${b}-${c}-${d}-${e}`;
    if (form === 'simple') return h.replace(/-/g, '');
    if (form === 'braced') return `{${h}}`;
    if (form === 'urn') return `urn:uuid:${h}`;
    return h;
  });

/** An RFC 3339 timestamp with a random offset and fraction. */
export const timestamp = fc
  .tuple(
    fc.date({
      min: new Date('1971-01-01T00:00:00Z'),
      max: new Date('2090-01-01T00:00:00Z'),
      noInvalidDate: true,
    }),
    fc.constantFrom('', '.5', '.120', '.123456', '.000000001'),
    fc.constantFrom('Z', '+01:00', '-05:30', '+00:00'),
  )
  .map(([d, frac, offset]) => d.toISOString().slice(0, 19) + frac + offset);

const text = fc.string({ unit: 'binary', maxLength: 10 });
const name = fc.string({ minLength: 1, maxLength: 8 }).filter((s) => s.trim() !== '');

/** Free-form JSON with integer numbers only (request params, metadata, tags). */
export const integerJson = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    text,
    fc.integer(),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('v'), { maxKeys: 4 }),
  ),
})).v;

/** Free-form JSON with any finite numbers (response metadata and details). */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

const encodingAndData = fc.oneof(
  fc.tuple(fc.constant('utf-8'), text),
  fc.tuple(fc.constant('base64'), fc.constantFrom('', 'aGVsbG8=', 'AAEC', 'SGk')),
  fc.tuple(
    fc.constant('path'),
    fc.constantFrom('workspace://artifacts/a.wav', 'workspace://temp/x/y.txt', '/tmp/file'),
  ),
);

const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null | undefined> =>
  fc.oneof(arb, fc.constant(null), fc.constant(undefined));

function dataItem(metadata: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      name,
      content_type: fc.constantFrom('text/plain', 'audio/wav', 'application/json'),
      e: encodingAndData,
      metadata: optional(metadata),
    })
    .map(({ e, metadata: m, ...rest }) => ({
      ...rest,
      encoding: e[0],
      data: e[1],
      ...(m === undefined ? {} : { metadata: m }),
    }));
}

/** Drops keys whose value is `undefined` (absent fields). */
function compact(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

/** A valid ESRP request, with optional fields absent, null or present. */
export const esrpRequest: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    esrp_version: fc.constantFrom('1.0', '1.1', '1.12'),
    request_id: uuid,
    idempotency_key: optional(text),
    timestamp,
    scope_id: optional(uuid),
    causation_id: optional(uuid),
    caller: fc.record({ system: name, agent_id: optional(name), run_id: optional(text) }).map(compact),
    target: fc.record({ service: name, operation: name, variant: optional(name) }).map(compact),
    mode: fc.option(
      fc
        .record({
          type: fc.constantFrom('sync', 'async'),
          timeout_ms: fc.option(fc.integer({ min: 1, max: 2 ** 40 }), { nil: undefined }),
        })
        .map(compact),
      { nil: undefined },
    ),
    context: optional(
      fc
        .record({
          trace_id: uuid,
          span_id: uuid,
          parent_span_id: optional(uuid),
          tags: fc.option(integerJson, { nil: undefined }),
        })
        .map(compact),
    ),
    inputs: fc.array(dataItem(integerJson), { minLength: 1, maxLength: 3 }),
    params: fc.option(integerJson, { nil: undefined }),
    params_schema_ref: optional(text),
    unknown_field: fc.option(anyJson, { nil: undefined }),
  })
  .map(compact);

const artifact = fc.record({
  artifact_id: uuid,
  kind: fc.constantFrom('file', 'blob'),
  uri: fc.constantFrom('workspace://artifacts/a.wav', 'https://example.com/x'),
  sha256: hex(64),
  size_bytes: fc.integer({ min: 1, max: 2 ** 40 }),
  retention: fc.constantFrom('ephemeral', 'run', 'pinned'),
});

const timing = fc
  .record({
    accepted_at: fc.option(timestamp, { nil: undefined }),
    started_at: fc.option(timestamp, { nil: undefined }),
    finished_at: fc.option(timestamp, { nil: undefined }),
    duration_ms: fc.option(
      fc.oneof(fc.integer({ min: 0, max: 10 ** 7 }), fc.double({ min: 0, max: 1e7, noNaN: true })),
      { nil: undefined },
    ),
  })
  .map(compact);

const job = fc.record({
  job_id: uuid,
  state: fc.constantFrom('queued', 'started', 'succeeded', 'failed', 'cancelled'),
});

const error = fc
  .record({
    code: fc.constantFrom(...ESRP_ERROR_CODES),
    message: text,
    retry_after_ms: fc.option(fc.integer({ min: 0, max: 10 ** 6 }), { nil: undefined }),
    retry_strategy: fc.option(fc.constantFrom('exponential', 'linear', 'immediate'), { nil: undefined }),
    max_retries: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
    details: fc.option(anyJson, { nil: undefined }),
  })
  .map((e) => compact({ ...e, retryable: ESRP_ERROR_TABLE[e.code].retryable }));

/** A valid ESRP response of any status. */
export const esrpResponse: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    esrp_version: fc.constantFrom('1.0', '1.3'),
    request_id: uuid,
    status: fc.constantFrom('succeeded', 'failed', 'accepted'),
    timing: fc.option(timing, { nil: undefined }),
    outputs: fc.option(fc.array(dataItem(anyJson), { maxLength: 2 }), { nil: undefined }),
    artifacts: fc.option(fc.array(artifact, { maxLength: 2 }), { nil: undefined }),
    job: fc.option(job, { nil: undefined }),
    error,
  })
  .map(({ status, error: e, job: j, ...rest }) =>
    compact({
      ...rest,
      status,
      job:
        status === 'accepted'
          ? (j ?? { job_id: 'aa0e8400-e29b-41d4-a716-446655440000', state: 'queued' })
          : j,
      error: status === 'failed' ? e : undefined,
    }),
  );
