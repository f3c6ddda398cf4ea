import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { isPlexusError, PLEXUS_ERROR_BRAND } from '../../src/core/is-plexus-error.js';
import { InvocationError } from '../../src/sdk/index.js';

type ErrorsModule = typeof import('../../src/core/errors.js');
type BrandModule = typeof import('../../src/core/is-plexus-error.js');

/**
 * A second, separately evaluated copy of the error modules, as a bundler or a second
 * installed version would give: the query string makes a distinct module instance (so a
 * brand made with a plain `Symbol()` would differ between the copies).
 */
function copyOf(module: string): string {
  return new URL(`../../src/core/${module}.ts?copy=second`, import.meta.url).href;
}

/** The second copy of both modules. */
async function secondCopy(): Promise<{ errors: ErrorsModule; brand: BrandModule }> {
  const errors = (await import(/* @vite-ignore */ copyOf('errors'))) as ErrorsModule;
  const brand = (await import(/* @vite-ignore */ copyOf('is-plexus-error'))) as BrandModule;
  return { errors, brand };
}

describe('isPlexusError', () => {
  it('recognises a PlexusError and its subclasses', () => {
    expect(isPlexusError(new PlexusError('NOT_FOUND', 'no such verb'))).toBe(true);
    expect(isPlexusError(PlexusError.fromData({ code: 'TIMEOUT', message: 'late', retryable: true }))).toBe(
      true,
    );
    const invocation = new InvocationError(
      { code: 'INVALID_PARAMS', message: 'bad', retryable: false },
      { verb: 'demo.echo.say' },
    );
    expect(isPlexusError(invocation)).toBe(true);
  });

  it('recognises an error made by a second copy of the module, where instanceof fails', async () => {
    const copy = await secondCopy();
    expect(copy.errors.PlexusError).not.toBe(PlexusError);
    const foreign = new copy.errors.PlexusError('FORBIDDEN', 'not yours');
    expect(foreign instanceof PlexusError).toBe(false);
    expect(isPlexusError(foreign)).toBe(true);
    // and the other way round: the second copy's check knows this copy's errors
    expect(copy.brand.isPlexusError(new PlexusError('CONFLICT', 'twice'))).toBe(true);
    expect(copy.brand.PLEXUS_ERROR_BRAND).toBe(PLEXUS_ERROR_BRAND);
  });

  it('recognises any object carrying the brand', () => {
    const branded = { code: 'INTERNAL', message: 'x', [Symbol.for('plexus.error')]: true };
    expect(isPlexusError(branded)).toBe(true);
  });

  it('rejects look-alikes', () => {
    const lookAlikes: unknown[] = [
      undefined,
      null,
      0,
      'PlexusError',
      Symbol.for('plexus.error'),
      new Error('plain'),
      Object.assign(new Error('named'), { name: 'PlexusError', code: 'NOT_FOUND', retryable: false }),
      { code: 'NOT_FOUND', message: 'shaped like one', retryable: false },
      { [Symbol('plexus.error')]: true, code: 'NOT_FOUND' }, // a private symbol, not the registered one
      { [Symbol.for('plexus.error')]: 'true' },
      { [Symbol.for('plexus.error')]: 1 },
      { ['plexus.error']: true },
      PlexusError.prototype.toData.call(new PlexusError('NOT_FOUND', 'wire form')),
    ];
    for (const value of lookAlikes) expect(isPlexusError(value), String(value)).toBe(false);
  });

  it('keeps the brand off the wire form and out of enumeration', () => {
    const error = new PlexusError('NOT_FOUND', 'gone');
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(JSON.parse(JSON.stringify(error.toData()))).toEqual(error.toData());
    expect(Object.keys(error.toData())).not.toContain('plexus.error');
  });
});
