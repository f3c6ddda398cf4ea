/**
 * The mock server's parts (seed 002 §12.1, §12.3): deterministic, schema-valid value
 * generation and the agents that serve a verb manifest with it.
 */
export {
  MOCK_STREAM_CHUNKS,
  mockAgents,
  mockExampleInput,
  mockInputSchema,
  mockOutput,
  mockSeed,
  streamChunks,
  type MockAgents,
  type MockAgentsInit,
  type MockVerb,
} from './mock-agents.js';
export { OPEN_REPEAT_EXTRA, samplePattern } from './sample-pattern.js';
export {
  DEFAULT_SAMPLE_DEPTH,
  HARD_DEPTH_LIMIT,
  SAMPLE_ATTEMPTS,
  sampleMatching,
  sampleSchema,
  type SampleInit,
} from './sample-schema.js';
export {
  MOCK_TIME_RANGE,
  MOCK_WORDS,
  sampleFormat,
  sampleString,
  sampleText,
  type LengthBounds,
} from './sample-string.js';
export { seededRandom, type SeededRandom } from './seeded-random.js';
