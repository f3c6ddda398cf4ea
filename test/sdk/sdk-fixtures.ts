// Verbs and agents shared by the SDK tests, and an SDK instance over a runtime on a memory log.
import { PlexusError } from '../../src/core/errors.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { agent, createPlexus, refuse, verb, type Plexus } from '../../src/sdk/index.js';
import { memoryEventLog, type EventLog } from '../../src/store/index.js';

export const TEXT = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: { text: { type: 'string' } },
} as const;

export interface Text {
  text: string;
}

/** Counts handler runs per verb. */
export const runs = new Map<string, number>();
const count = (name: string): void => {
  runs.set(name, (runs.get(name) ?? 0) + 1);
};

export const recall = verb<{ query: string }, Text>(
  'soul.memory.recall',
  {
    input: { type: 'object', required: ['query'], properties: { query: { type: 'string' } } },
    output: TEXT,
    effects: ['reads: memory_crystals', 'emits: soul.memory.recalled'],
    capabilities: ['soul:read'],
    description: 'Finds a memory.',
  },
  async (input, ctx) => {
    count('soul.memory.recall');
    if (input.query === 'forbidden')
      return refuse('that memory is private', { consentRequired: 'memory/share' });
    if (input.query === 'missing') throw new PlexusError('NOT_FOUND', `no memory matches ${input.query}`);
    await ctx.emit('soul.memory.recalled', { query: input.query });
    return { text: `memory of ${input.query}` };
  },
);

export const store = verb<Text, Text>(
  'soul.memory.store',
  {
    input: TEXT,
    output: TEXT,
    effects: { reads: ['x'], writes: ['memory_crystals'], emits: ['soul.memory.stored'] },
    capabilities: ['soul:write'],
  },
  async (input, ctx) => {
    count('soul.memory.store');
    await ctx.emit('soul.memory.stored', { text: input.text });
    return input;
  },
);

export const compress = verb<Text, Text>(
  'concept.summary.compress',
  {
    input: TEXT,
    output: TEXT,
    effects: { reads: ['memory_crystals'], calls: ['llm/none'] },
    capabilities: ['concept:use'],
  },
  (input) => {
    count('concept.summary.compress');
    if (input.text.includes('boom')) throw new PlexusError('PRECONDITION_FAILED', 'cannot compress a boom');
    if (input.text.includes('decline')) return refuse('declining to compress');
    return { text: input.text.split(' ').slice(0, 2).join(' ') };
  },
);

export const shout = verb<Text, Text>('concept.summary.shout', { input: TEXT, output: TEXT }, (input) => {
  count('concept.summary.shout');
  return { text: input.text.toUpperCase() };
});

/** Calls recall as a child span (nested invoke). */
export const reflect = verb<Text, Text>(
  'soul.mind.reflect',
  { input: TEXT, output: TEXT },
  async (input, ctx) => {
    const inner = await ctx.invoke<Text>('soul.memory.recall', { query: input.text });
    if ('$refusal' in inner) return inner;
    return { text: `reflecting on ${inner.text}` };
  },
);

/** Emits outside its namespace (refused by the SDK). */
export const rogue = verb('soul.rogue.act', { input: true, output: true }, async (_input, ctx) => {
  await ctx.emit('job.completed', { id: 'forged' });
  return null;
});

/** Emits an event of its own namespace that its effects do not declare (refused by the SDK). */
export const undeclared = verb(
  'soul.rogue.gossip',
  { input: true, output: true, effects: ['emits: soul.rogue.whispered'] },
  async (_input, ctx) => {
    await ctx.emit('soul.rogue.shouted', { loud: true });
    return null;
  },
);

/** Returns an output its schema forbids. */
export const liar = verb('soul.rogue.lie', { input: true, output: { type: 'string' } }, () => 42);

export const soulAgent = agent('soul', [recall, store, reflect, rogue, undeclared, liar], {
  description: 'Memories.',
});
export const conceptAgent = agent('concept', [compress, shout]);

export interface SdkHarness {
  readonly plexus: Plexus;
  readonly runtime: Runtime;
  readonly log: EventLog;
  close(): Promise<void>;
}

/** An SDK instance over a started runtime and memory log, with both agents registered. */
export async function startSdk(): Promise<SdkHarness> {
  const log = memoryEventLog();
  await log.start();
  const runtime = createRuntime({ log });
  await runtime.start();
  const plexus = createPlexus({ runtime, log });
  await plexus.register(soulAgent);
  await plexus.register(conceptAgent);
  return {
    plexus,
    runtime,
    log,
    async close() {
      await runtime.stop({ drainMs: 0 });
      await log.stop();
    },
  };
}
