import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import { callNameProblem, esrpTargetOfCallName, verbAliasProblem } from '../../src/core/verb-alias.js';
import { defineAgent } from '../../src/runtime/index.js';
import { verbAliases } from '../../src/runtime/agents/verb-aliases.js';

const card = {
  id: 'state',
  name: 'state',
  version: '1.0.0',
  tier: 'L3' as const,
  capabilities: [{ verb: 'state.create_session', input: true, output: true }],
};

describe('verbAliases', () => {
  it('resolves an alias to its verb, keeps an @version, and leaves other names alone', () => {
    const table = verbAliases();
    table.add('state', { 'state.createSession': 'state.create_session' });
    expect(table.resolve('state.createSession')).toBe('state.create_session');
    expect(table.resolve('state.createSession@1')).toBe('state.create_session@1');
    expect(table.resolve('state.create_session')).toBe('state.create_session');
    expect(table.resolve('other.thing')).toBe('other.thing');
  });

  it('resolves the verb and a capability address of an envelope, the same object when nothing changes', () => {
    const table = verbAliases();
    table.add('state', { 'state.createSession': 'state.create_session' });
    const request: Envelope = {
      id: '1',
      kind: 'request',
      from: 'me',
      to: 'capability:state.createSession',
      verb: 'state.createSession',
      data: {},
    };
    expect(table.resolveEnvelope(request)).toMatchObject({
      verb: 'state.create_session',
      to: 'capability:state.create_session',
    });
    const plain = { ...request, verb: 'math.evaluate', to: 'math' };
    expect(table.resolveEnvelope(plain)).toBe(plain);
  });

  it('refuses an alias another agent declared (CONFLICT) and forgets an agent’s aliases on remove', () => {
    const table = verbAliases();
    table.add('state', { 'state.createSession': 'state.create_session' });
    expect(() => {
      table.add('rogue', { 'state.createSession': 'rogue.take' });
    }).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    table.remove('state');
    expect(table.resolve('state.createSession')).toBe('state.createSession');
    expect(table.entries()).toEqual([]);
  });
});

describe('agent aliases', () => {
  it('accepts camelCase aliases of the card’s verbs', () => {
    const agent = defineAgent({
      card,
      create: () => ({}),
      aliases: { 'state.createSession': 'state.create_session' },
    });
    expect(agent.aliases).toEqual({ 'state.createSession': 'state.create_session' });
  });

  it.each([
    [{ 'state.create_session': 'state.create_session' }, /only letters and digits/],
    [{ 'state.makeSession': 'state.other' }, /not a verb of its card/],
    [{ 'State.Bad-Name': 'state.create_session' }, /lower-case letter/],
    [{ single: 'state.create_session' }, /two or three/],
  ])('refuses %j', (aliases, message) => {
    expect(() => defineAgent({ card, create: () => ({}), aliases })).toThrow(message);
  });
});

describe('call names', () => {
  it('accepts verb names and aliases, refuses anything else', () => {
    expect(callNameProblem('state.create_session')).toBeUndefined();
    expect(callNameProblem('state.createSession')).toBeUndefined();
    expect(callNameProblem('micropayments.channel.open')).toBeUndefined();
    expect(callNameProblem('state.createSession@1')).toBeDefined();
    expect(callNameProblem('state.Create-Session')).toBeDefined();
    expect(verbAliasProblem('a'.repeat(300))).toBeDefined();
  });

  it('splits a call name into an ESRP target', () => {
    expect(esrpTargetOfCallName('micropayments.channel.open')).toEqual({
      service: 'micropayments.channel',
      operation: 'open',
    });
    expect(esrpTargetOfCallName('state.createSession')).toEqual({
      service: 'state',
      operation: 'createSession',
    });
    expect(() => esrpTargetOfCallName('state.create_session@1')).toThrow(/no version/);
  });
});
