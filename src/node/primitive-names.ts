/**
 * The names of the eight Hyperspace primitives (seed 003), in a module of their own so the
 * config schema and the CLI can name them without loading the primitives themselves.
 */
import { PlexusError } from '../core/errors.js';

/** The primitive names, in the seed's order. */
export const HYPERSPACE_PRIMITIVES = [
  'state',
  'guard',
  'tool',
  'memory',
  'recursive',
  'learning',
  'improving',
  'micropayments',
] as const;

/** One of {@link HYPERSPACE_PRIMITIVES}. */
export type HyperspacePrimitiveName = (typeof HYPERSPACE_PRIMITIVES)[number];

/**
 * Checks a list of primitive names.
 * @throws PlexusError `INVALID_PARAMS` naming an unknown primitive.
 */
export function checkPrimitiveNames(names: readonly string[]): readonly HyperspacePrimitiveName[] {
  for (const name of names) {
    if (!(HYPERSPACE_PRIMITIVES as readonly string[]).includes(name)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `unknown primitive ${JSON.stringify(name)}; the primitives are ${HYPERSPACE_PRIMITIVES.join(', ')}`,
        { details: { field: 'primitives' } },
      );
    }
  }
  return names as readonly HyperspacePrimitiveName[];
}
