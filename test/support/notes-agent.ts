/**
 * A one-verb agent for capability tests: `notes.entry.add`, a mutation that declares
 * `writes: notes` and needs the scope `notes:write`; it answers `{added: input}`.
 */
import { defineAgent } from '../../src/runtime/index.js';

/** The `notes` agent. */
export const notesAgent = defineAgent({
  card: {
    id: 'notes',
    name: 'Notes',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: 'notes.entry.add', input: true, output: true }],
  },
  verbs: [
    {
      name: 'notes.entry.add',
      version: 1,
      status: 'stable',
      input: true,
      output: true,
      effects: { writes: ['notes'] },
      capabilities: ['notes:write'],
      category: 'mutation',
      deterministic: false,
    },
  ],
  create: () => ({ 'notes.entry.add': (input) => ({ added: input }) }),
});
