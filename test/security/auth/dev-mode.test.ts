import { describe, expect, it } from 'vitest';
import { authPolicy, authRequired, isLoopbackHost } from '../../../src/security/auth/dev-mode.js';
import { anonymousPrincipal } from '../../../src/security/auth/principal.js';

describe('isLoopbackHost', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    'localhost',
    'LOCALHOST',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
  ])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each([
    '0.0.0.0',
    '::',
    '',
    '192.168.1.10',
    '10.0.0.1',
    'example.com',
    '::2',
    '::ffff:10.0.0.1',
    '128.0.0.1',
    'localhost.evil.com',
  ])('%j is not loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('authRequired', () => {
  it('lets a loopback node in dev mode run without auth', () => {
    expect(authRequired({ host: '127.0.0.1', dev: true })).toBe(false);
    expect(authRequired({ host: '::1', dev: true })).toBe(false);
  });

  it('keeps auth on without --dev, even on loopback', () => {
    expect(authRequired({ host: '127.0.0.1', dev: false })).toBe(true);
  });

  it('keeps auth on for --dev on a non-loopback address, and says why', () => {
    expect(authRequired({ host: '0.0.0.0', dev: true })).toBe(true);
    expect(authPolicy({ host: '0.0.0.0', dev: true }).reason).toMatch(/only on a loopback address/);
    expect(authPolicy({ host: '', dev: true }).reason).toMatch(/all interfaces/);
  });
});

describe('anonymousPrincipal', () => {
  it('is a frozen anonymous principal with the wildcard scope', () => {
    const p = anonymousPrincipal();
    expect(p).toEqual({ id: 'anonymous', kind: 'anonymous', scopes: ['*'] });
    expect(Object.isFrozen(p)).toBe(true);
    expect(Object.isFrozen(p.scopes)).toBe(true);
  });
});
