/**
 * The Plexus SDK — seed 002's "50-line API": define a verb, host it, invoke it, compose verbs
 * into a pipeline, query the registry by pattern, subscribe to events by pattern, and call a
 * remote node with the same `invoke`. See docs/sdk.md.
 *
 * @example
 * import { agent, createPlexus, verb } from 'plexus/sdk';
 * const plexus = createPlexus({ node });
 * await plexus.register(agent('soul', [verb('soul.memory.recall', { input, output }, recall)]));
 * const crystal = await plexus.invoke('soul.memory.recall', { query: 'last conversation' });
 * const pipeline = plexus.compose('soul.memory.recall', 'concept.summary.compress');
 * const verbs = plexus.query('soul.*');
 * for await (const event of plexus.subscribe('soul.memory.*')) remember(event);
 */
export type { Pipeline, PipelineStep } from './compose.js';
export { InvocationError } from './invocation-error.js';
export { prompt, type PromptOptions, type PromptTemplate } from './prompt.js';
export { resource, type ResourceLoader, type ResourceOptions } from './resource.js';
export { createPlexus, type Plexus, type PlexusInit, type SubscribeOptions } from './plexus.js';
export {
  agenteseRefusalOf,
  isRefusal,
  refuse,
  type AgenteseRefusal,
  type Refusal,
  type RefusalInfo,
} from './refusal.js';
export { remoteClient, type RemoteClient, type RemoteClientInit } from './remote-client.js';
export { childTraceparent, newTraceparent, traceIdOf } from './trace-context.js';
export type { CallResult, InvokeOptions, VerbContext } from './verb-context.js';
export type { VerbInfo } from './verb-info.js';
export { esrpWarningsOf, type EraWarning } from './warnings.js';
export {
  agent,
  verb,
  type AgentOptions,
  type AgentSpec,
  type EffectsInput,
  type SomeVerbDefinition,
  type VerbDefinition,
  type VerbHandlerFn,
  type VerbOptions,
} from './verb.js';
