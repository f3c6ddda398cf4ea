/**
 * Plexus: one agent mesh for the Emergence, ESRP, AGENTESE, Hyperspace and Nova26 protocols.
 *
 * The package root re-exports the public API of each layer; each layer is also a subpath
 * export (`plexus/core`, `plexus/security`, `plexus/wire`, `plexus/store`, `plexus/runtime`). Every name here
 * comes from a layer index with explicit named exports, and test/public-api.test.ts pins
 * the list.
 */
export * from './core/index.js';
export * from './security/index.js';
export * from './wire/index.js';
export * from './store/index.js';
export * from './runtime/index.js';

// Two layers name a `Principal`: the authenticated caller of security/auth (the package
// root's `Principal`) and the runtime's view of it in an invocation context.
export type { Principal } from './security/index.js';
export type { Principal as RuntimePrincipal } from './runtime/index.js';
