// Shared assertion for the security tests: a call throws a PlexusError with a given code.
import { expect } from 'vitest';
import { PlexusError, type PlexusErrorCode } from '../../src/core/errors.js';

/** Runs `fn`, expects a PlexusError with `code`, and returns it for further checks. */
export function expectPlexusError(fn: () => unknown, code: PlexusErrorCode): PlexusError {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown, `expected ${code} to be thrown`).toBeInstanceOf(PlexusError);
  const error = thrown as PlexusError;
  expect(error.code, error.message).toBe(code);
  return error;
}

/** Async form of {@link expectPlexusError}. */
export async function expectPlexusErrorAsync(
  fn: () => Promise<unknown>,
  code: PlexusErrorCode,
): Promise<PlexusError> {
  let thrown: unknown;
  try {
    await fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown, `expected ${code} to be thrown`).toBeInstanceOf(PlexusError);
  const error = thrown as PlexusError;
  expect(error.code, error.message).toBe(code);
  return error;
}
