import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import {
  decodeEmergence,
  emergenceDone,
  emergenceErrorReply,
  emergenceErrorToPlexus,
  emergenceReply,
  encodeEmergence,
} from '../../../src/wire/emergence/index.js';

const request = decodeEmergence({
  id: '77f7b6d2-5e44-4a71-9bcb-5ddc21019f24',
  from: 'agent_b',
  to: 'agent_a',
  verb: 'HELP',
  data: { prompt: 'Summarise' },
});

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof PlexusError) return e.code;
    throw e;
  }
  return 'none';
}

describe('emergenceReply', () => {
  it('reuses the request id and swaps from and to', () => {
    const reply = emergenceReply(request, 'DONE', { result: 'This paper explores …' });
    expect(reply).toEqual({
      id: request.id,
      kind: 'response',
      from: 'agent_a',
      to: 'agent_b',
      verb: 'DONE',
      data: { result: 'This paper explores …' },
    });
    expect(encodeEmergence(reply)).toEqual({
      id: request.id,
      from: 'agent_a',
      to: 'agent_b',
      verb: 'DONE',
      data: { result: 'This paper explores …' },
    });
  });

  it('takes the kind from the verb', () => {
    expect(emergenceReply(request, 'ERROR', { code: 429, msg: 'quota' }).kind).toBe('error');
    expect(emergenceReply(request, 'HELLO', {}).kind).toBe('hello');
    expect(emergenceReply(request, 'CLARIFY', { q: '?' }).kind).toBe('request');
  });

  it('needs init.from to answer a broadcast', () => {
    const broadcast = { ...request, to: 'broadcast' };
    expect(code(() => emergenceReply(broadcast, 'HELLO', {}))).toBe('INVALID_PARAMS');
    expect(emergenceReply(broadcast, 'HELLO', {}, { from: 'agent_c' }).from).toBe('agent_c');
  });

  it('rejects a lower-case verb and a reply that is not a valid message', () => {
    expect(code(() => emergenceReply(request, 'done', { result: 1 }))).toBe('INVALID_PARAMS');
    expect(code(() => emergenceReply(request, 'DONE', { summary: 'x' }))).toBe('INVALID_PARAMS');
    expect(code(() => emergenceReply(request, 'HELP', 'text'))).toBe('INVALID_PARAMS');
  });
});

describe('emergenceDone and emergenceErrorReply', () => {
  it('wraps the result', () => {
    expect(emergenceDone(request, [1, 2]).data).toEqual({ result: [1, 2] });
  });

  it('sends a PlexusError as ERROR that a Plexus peer reads back exactly', () => {
    const error = new PlexusError('BUDGET_EXCEEDED', 'over budget', { details: { remaining: 0 } });
    const reply = emergenceErrorReply(request, error);
    const wire = encodeEmergence(reply);
    expect(wire.verb).toBe('ERROR');
    expect(wire.data).toEqual({ code: 402, msg: 'over budget' });
    expect(wire.id).toBe(request.id);
    const back = emergenceErrorToPlexus(decodeEmergence(wire));
    expect(back.toData()).toEqual(error.toData());
  });
});
