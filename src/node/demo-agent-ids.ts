/**
 * The ids of the demo agents (`plexus start --demo`), in a module of their own so the config
 * schema can name them without loading the agents.
 */
export const DEMO_AGENT_IDS = ['echo', 'text', 'math', 'demo', 'conformance', 'tck'] as const;
