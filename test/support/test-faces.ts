/**
 * The face names the tests invoke the runtime under (`{ face: 'test' }`), declared the way
 * every face declares its own (see `FaceNames` in src/runtime/context.ts).
 */
export {};

declare module '../../src/runtime/context.js' {
  interface FaceNames {
    /** The usual face of a test's invocations. */
    readonly test: true;
    /** A short test face name. */
    readonly t: true;
    /** Another short test face name. */
    readonly x: true;
  }
}
