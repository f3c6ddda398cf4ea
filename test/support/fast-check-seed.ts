/**
 * Vitest `setupFiles`: every fast-check property in the suite runs from a fixed seed unless it
 * sets its own, so a failure replays exactly and no run depends on luck. `PLEXUS_FC_SEED`
 * overrides it to explore other seeds on purpose.
 */
import fc from 'fast-check';

/** The seed every `fc.assert` / `fc.check` uses when it does not pass one. */
export const DEFAULT_FC_SEED = 20_261_126;

const fromEnv = Number(process.env['PLEXUS_FC_SEED']);
fc.configureGlobal({
  ...fc.readConfigureGlobal(),
  seed: Number.isSafeInteger(fromEnv) && process.env['PLEXUS_FC_SEED'] !== '' ? fromEnv : DEFAULT_FC_SEED,
});
