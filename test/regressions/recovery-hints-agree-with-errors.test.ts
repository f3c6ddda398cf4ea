// Issue 11, item 14 (errors): a recovery hint never contradicts its error — a non-retryable
// error never says "retry", a retryable one says when, and a hint never points at a field the
// error does not have — for every error code, on every face's error form. On the original main
// SESSION_NOT_FOUND, CONFLICT, PRECONDITION_FAILED and BUDGET_EXCEEDED (never retryable) said
// "retry", a final TIMEOUT / UNAVAILABLE said "Retry…", and every INVALID_PARAMS pointed at
// details.problems whether or not it had them.
import { describe, expect, it } from 'vitest';
import { recoveryFields } from '../../src/core/error-recovery.js';
import { ERROR_TABLE, PlexusError, type ErrorData, type PlexusErrorCode } from '../../src/core/errors.js';
import { esrpErrorOf } from '../../src/transports/http/esrp-answer.js';
import { errorDataWithRecovery } from '../../src/transports/ws-jsonrpc/dispatch.js';
import { InvocationError } from '../../src/sdk/invocation-error.js';

const CODES = Object.keys(ERROR_TABLE) as PlexusErrorCode[];
const SAYS_RETRY = /\bretr(y|ies|ying|ied)\b/i;

/** Every `details.<field>` a text points at. */
function pointedFields(text: string): string[] {
  return [...text.matchAll(/details\.([A-Za-z_]+)/g)].map((m) => m[1] ?? '');
}

/** The variants of one code's error: retryable or not, with and without details. */
function variants(code: PlexusErrorCode): ErrorData[] {
  const base = { code, message: `a ${code} error` };
  return [
    { ...base, retryable: ERROR_TABLE[code].retryable },
    { ...base, retryable: !ERROR_TABLE[code].retryable },
    { ...base, retryable: false, details: { pointer: '/x' } },
    { ...base, retryable: false, details: { problems: [{ pointer: '/x', message: 'bad' }] } },
    { ...base, retryable: false, details: { problems: [] } },
    { ...base, retryable: true, details: {} },
  ];
}

function checkAgreement(
  where: string,
  retryable: boolean,
  action: unknown,
  retryAfter: unknown,
  details: unknown,
): void {
  expect(typeof action, where).toBe('string');
  const text = action as string;
  if (!retryable) {
    expect(text, `${where}: a non-retryable error says retry`).not.toMatch(SAYS_RETRY);
    expect(retryAfter, `${where}: retry_after on a non-retryable error`).toBeUndefined();
  }
  const have = (details ?? {}) as Record<string, unknown>;
  for (const field of pointedFields(text)) {
    const value = have[field];
    expect(
      value !== undefined && !(Array.isArray(value) && value.length === 0),
      `${where}: points at details.${field}, which the error does not have`,
    ).toBe(true);
  }
}

describe('recovery hints agree with their errors', () => {
  for (const code of CODES) {
    it(`${code}: on the core fields and every face's error form`, () => {
      for (const data of variants(code)) {
        const tag = `${code} retryable=${String(data.retryable)} details=${JSON.stringify(data.details)}`;
        const core = recoveryFields(data);
        checkAgreement(`core ${tag}`, data.retryable, core.suggested_action, core.retry_after, data.details);
        if (data.retryable && ERROR_TABLE[code].retryable) expect(core.retry_after, tag).toBeGreaterThan(0);

        // ESRP: retryable is the ESRP code's; the hints must follow that
        const esrp = esrpErrorOf(data);
        const esrpDetails = esrp['details'] as Record<string, unknown>;
        checkAgreement(
          `esrp ${tag}`,
          esrp['retryable'] === true,
          esrpDetails['suggested_action'],
          esrpDetails['retry_after'],
          esrpDetails,
        );
        if (esrp['retryable'] !== true) expect(esrp['retry_after_ms'], tag).toBeUndefined();

        // WebSocket JSON-RPC (Hyperspace) error data
        const ws = errorDataWithRecovery(PlexusError.fromData(data));
        checkAgreement(
          `ws ${tag}`,
          ws['retryable'] === true,
          ws['suggested_action'],
          ws['retry_after'],
          ws['details'],
        );

        // the SDK's error
        const sdk = new InvocationError(data, { verb: 'a.b' });
        checkAgreement(`sdk ${tag}`, sdk.retryable, sdk.suggestedAction, sdk.retryAfter, data.details);
      }
    });
  }

  it('keeps a raising code’s own action unless it tells a final error to retry', () => {
    const own = recoveryFields({
      code: 'PRECONDITION_FAILED',
      message: 'm',
      retryable: false,
      hints: { suggestedAction: 'Close the channel first.' },
    });
    expect(own.suggested_action).toBe('Close the channel first.');
    const contradicting = recoveryFields({
      code: 'PRECONDITION_FAILED',
      message: 'm',
      retryable: false,
      hints: { suggestedAction: 'Retry in a moment.' },
    });
    expect(contradicting.suggested_action).not.toMatch(SAYS_RETRY);
  });
});
