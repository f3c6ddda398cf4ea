import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/wire/detect.js';

describe('detectFormat', () => {
  it('recognises each wire format by its telltale keys', () => {
    expect(detectFormat([{ jsonrpc: '2.0', method: 'x', id: 1 }])).toBe('jsonrpc');
    expect(detectFormat({ jsonrpc: '2.0', method: 'x' })).toBe('jsonrpc');
    expect(detectFormat({ esrp_version: '1.0', target: {} })).toBe('esrp-request');
    expect(detectFormat({ esrp_version: '1.0', status: 'succeeded' })).toBe('esrp-response');
    expect(detectFormat({ schemaVersion: '1.0', type: 'request' })).toBe('nova');
    expect(detectFormat({ verb: 'soul.memory.recall', tenant_id: 't' })).toBe('agentese');
    expect(detectFormat({ id: 'x', from: 'a', to: 'b', verb: 'HELP', data: {} })).toBe('emergence');
  });

  it('returns undefined when nothing fits', () => {
    expect(detectFormat({ hello: 'world' })).toBeUndefined();
    expect(detectFormat(42)).toBeUndefined();
    expect(detectFormat(null)).toBeUndefined();
  });
});
