/**
 * Which verb an A2A message names (A2A-6), and remote agents on the node endpoint (MESH-33): a
 * name none of the endpoint's own agents offers is looked up among the remote agents it can
 * reach, so `/a2a` on a node of the mesh forwards it; the endpoint's own agents come first, the
 * text rule stays with them, and an unknown name still lists only the endpoint's skills.
 */
import { Role, type Message, type Part } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { messageCall } from '../../../src/transports/a2a/message-verb.js';
import { cap, card } from '../../runtime/helpers.js';

const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const local = [card('echo', [cap('echo.say', text), cap('sum.add')])];
const remote = [
  card('adder-b', [cap('sum.add'), cap('sum.mul')], { origin: 'remote' }),
  card('adder-c', [cap('sum.mul')], { origin: 'remote' }),
  card('shout', [cap('shout.say', text)], { origin: 'remote' }),
];

function message(parts: Part[], metadata?: Record<string, JsonValue>): Message {
  return {
    messageId: 'm-1',
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}
const data = (value: JsonValue): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});
const words = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

describe('the verb of an A2A message', () => {
  it('names a remote agent’s verb, by verb or by skill id, when no local agent offers it', () => {
    expect(messageCall(message([data({ verb: 'sum.mul', input: { a: 2 } })]), local, remote)).toEqual({
      to: 'capability:sum.mul',
      verb: 'sum.mul',
      input: { a: 2 },
    });
    expect(messageCall(message([data({ verb: 'adder-c/sum.mul' })]), local, remote)).toEqual({
      to: 'adder-c',
      verb: 'sum.mul',
      input: {},
    });
    expect(messageCall(message([data({ n: 1 })], { skill: 'shout/shout.say' }), local, remote)).toEqual({
      to: 'shout',
      verb: 'shout.say',
      input: { n: 1 },
    });
  });

  it('keeps a verb a local agent offers with it, and text-only messages with the local agents', () => {
    expect(messageCall(message([data({ verb: 'sum.add' })]), local, remote).to).toBe('echo');
    expect(messageCall(message([words('hi')]), local, remote)).toMatchObject({
      to: 'echo',
      verb: 'echo.say',
      input: { text: 'hi' },
    });
  });

  it('refuses a name nobody offers, listing the endpoint’s own skills; without reachable agents as before', () => {
    expect(() => messageCall(message([data({ verb: 'nope.none' })]), local, remote)).toThrow(
      'no skill "nope.none" at this endpoint; skills: echo/echo.say, echo/sum.add',
    );
    expect(() => messageCall(message([data({ verb: 'sum.mul' })]), local)).toThrow(/no skill "sum.mul"/);
  });
});
