/**
 * The contract every `RouteTransport` must pass (DESIGN §6), fakes included: it says what it
 * supports, delivers and resolves with the far side's answer, resolves (never rejects) with an
 * `error` answer when the far side failed, rejects with a retryable PlexusError when it cannot
 * deliver, and never answers `response` once the signal has aborted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import type { RouteTarget, RouteTransport } from '../../../src/runtime/routing/index.js';

/** One implementation under test. */
export interface TransportFixture {
  readonly transport: RouteTransport;
  /** A target it reaches. */
  readonly reachable: RouteTarget;
  /** A target it does not support. */
  readonly foreign: RouteTarget;
  /** A request the far side answers with `expected`. */
  readonly ok: () => Envelope;
  readonly expected: JsonValue;
  /** A request the far side runs and fails. */
  readonly failing: () => Envelope;
  /** Makes `reachable` undeliverable (stops the far side); absent when it cannot happen. */
  readonly makeUnreachable?: () => Promise<void>;
  close(): Promise<void>;
}

/** Runs the contract against fixtures made by `make`. */
export function runRouteTransportContract(name: string, make: () => Promise<TransportFixture>): void {
  describe(`RouteTransport contract: ${name}`, () => {
    const open: TransportFixture[] = [];
    afterEach(async () => {
      for (const f of open.splice(0)) await f.close();
    });
    const fixture = async (): Promise<TransportFixture> => {
      const f = await make();
      open.push(f);
      return f;
    };
    const never = new AbortController().signal;

    it('says which targets it supports', async () => {
      const f = await fixture();
      expect(f.transport.name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(f.transport.supports(f.reachable)).toBe(true);
      expect(f.transport.supports(f.foreign)).toBe(false);
    });

    it('delivers and resolves with the answer', async () => {
      const f = await fixture();
      const answer = await f.transport.invoke({ target: f.reachable, envelope: f.ok() }, never);
      expect(answer.kind).toBe('response');
      expect(answer.data).toEqual(f.expected);
    });

    it('resolves with an error answer when the far side failed (no transport failure)', async () => {
      const f = await fixture();
      const answer = await f.transport.invoke({ target: f.reachable, envelope: f.failing() }, never);
      expect(answer.kind).toBe('error');
      expect(answer.data).toMatchObject({
        code: expect.any(String) as string,
        message: expect.any(String) as string,
      });
    });

    it('never answers response once the signal has aborted', async () => {
      const f = await fixture();
      const controller = new AbortController();
      controller.abort(new PlexusError('CANCELLED', 'stop'));
      const outcome = await f.transport
        .invoke({ target: f.reachable, envelope: f.ok() }, controller.signal)
        .then(
          (answer) => answer.kind,
          (error: unknown) => (error instanceof PlexusError ? 'rejected' : 'not a PlexusError'),
        );
      expect(['rejected', 'error']).toContain(outcome);
    });

    it('rejects with a retryable PlexusError when it cannot deliver', async () => {
      const f = await fixture();
      if (f.makeUnreachable === undefined) return;
      await f.makeUnreachable();
      const error = await f.transport.invoke({ target: f.reachable, envelope: f.ok() }, never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PlexusError);
      expect((error as PlexusError).retryable).toBe(true);
    });
  });
}
