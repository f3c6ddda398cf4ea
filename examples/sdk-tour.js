// A tour of the Plexus SDK — seed 002's "50-line API" — in one runnable program:
// define verbs, host them on an in-process node, invoke, compose a pipeline, query the
// registry by pattern, subscribe to events by pattern, and call the node over HTTP.
//
//   npm run build && node examples/sdk-tour.js [--keep]
//
// With --keep the node's data directory is kept, so `plexus trace` can draw the pipeline.
//
// In an application, import from 'plexus/sdk' and 'plexus/node' instead of ../dist/….
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode } from '../dist/node/index.js';
import {
  agent,
  createPlexus,
  isRefusal,
  newTraceparent,
  refuse,
  remoteClient,
  traceIdOf,
  verb,
} from '../dist/sdk/index.js';

const TEXT = { type: 'object', required: ['text'], properties: { text: { type: 'string' } } };
const memories = new Map();

// Define verbs: schemas, declared effects, required capability scopes, a handler.
const store = verb(
  'soul.memory.store',
  {
    input: TEXT,
    output: TEXT,
    effects: ['writes: memory_crystals', 'emits: soul.memory.stored'],
    capabilities: ['soul:write'],
  },
  async (input, ctx) => {
    memories.set(input.text.split(' ')[0].toLowerCase(), input.text);
    await ctx.emit('soul.memory.stored', { text: input.text });
    return input;
  },
);

const recall = verb(
  'soul.memory.recall',
  {
    input: { type: 'object', required: ['query'], properties: { query: { type: 'string' } } },
    output: TEXT,
    effects: ['reads: memory_crystals'],
    capabilities: ['soul:read'],
  },
  (input) => {
    if (input.query === 'diary') return refuse('the diary is private', { consentRequired: 'memory/diary' });
    return { text: memories.get(input.query) ?? 'nothing remembered' };
  },
);

const compress = verb(
  'concept.summary.compress',
  { input: TEXT, output: TEXT, effects: ['calls: summarizer'], capabilities: ['concept:use'] },
  (input) => ({ text: input.text.split(' ').slice(0, 3).join(' ') + ' …' }),
);

const keep = process.argv.includes('--keep');
const dataDir = await mkdtemp(join(tmpdir(), 'plexus-sdk-tour-'));
const node = createNode({ dataDir, port: 0, dev: true });
await node.start();
try {
  const plexus = createPlexus({ node });
  await plexus.register(agent('soul', [store, recall]));
  await plexus.register(agent('concept', [compress]));

  // Subscribe to events by pattern (live from now; ends after two events).
  const events = [];
  const listening = (async () => {
    for await (const event of plexus.subscribe('soul.memory.*', { limit: 2 })) events.push(event);
  })();

  // Invoke a verb.
  await plexus.invoke('soul.memory.store', { text: 'Tea at five with the whole town, in the rain' });
  await plexus.invoke('soul.memory.store', { text: 'Rain all week' });
  const tea = await plexus.invoke('soul.memory.recall', { query: 'tea' });
  console.log(`invoke soul.memory.recall -> ${JSON.stringify(tea)}`);

  // A refusal is a result, not an error.
  const diary = await plexus.invoke('soul.memory.recall', { query: 'diary' });
  console.log(`refused: ${isRefusal(diary)} (${diary.$refusal.reason})`);

  // Compose verbs: effects and scopes are known before the pipeline runs.
  const pipeline = plexus.compose('soul.memory.recall', 'concept.summary.compress');
  console.log(
    `compose effects ${JSON.stringify(pipeline.effects)} scopes ${pipeline.capabilities.join(',')}`,
  );
  const traceparent = newTraceparent();
  const summary = await pipeline.run({ query: 'tea' }, { traceparent });
  console.log(`compose ${pipeline.verbs.join(' >> ')} -> ${JSON.stringify(summary)}`);
  console.log(`trace ${traceIdOf(traceparent)}`);

  // Query the registry by pattern.
  console.log(
    `query soul.* -> ${plexus
      .query('soul.*')
      .map((v) => v.verb)
      .join(', ')}`,
  );

  await listening;
  for (const event of events) console.log(`event ${event.type} ${JSON.stringify(event.data)}`);

  // The same invoke against the node over HTTP (ESRP).
  const remote = remoteClient(node.url);
  const again = await remote.invoke('concept.summary.compress', { text: 'one two three four five' });
  console.log(`remote invoke -> ${JSON.stringify(again)}`);
} finally {
  await node.stop();
  if (!keep) await rm(dataDir, { recursive: true, force: true });
}
if (keep) console.log(`data kept in ${dataDir}`);
console.log('tour done');
