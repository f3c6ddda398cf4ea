import type { PlexusError } from './errors.js';

/**
 * The brand every {@link PlexusError} carries (on its prototype). `Symbol.for` puts it in the
 * global symbol registry, so two copies of Plexus bundled into one program (two versions in
 * `node_modules`, a bundler that inlines one) see the same symbol even though their
 * `PlexusError` classes differ and `instanceof` fails across them.
 */
export const PLEXUS_ERROR_BRAND: unique symbol = Symbol.for('plexus.error');

/**
 * Whether `value` is a Plexus error from any copy of the package: it carries the
 * {@link PLEXUS_ERROR_BRAND} set to `true`. A look-alike with only `code` and `message` is not.
 */
export function isPlexusError(value: unknown): value is PlexusError {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    (value as { [PLEXUS_ERROR_BRAND]?: unknown })[PLEXUS_ERROR_BRAND] === true
  );
}
