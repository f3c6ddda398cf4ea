/** Which webhook URLs A2A push notifications may go to (docs/decisions/a2a.md A2A-12). */
import { describe, expect, it } from 'vitest';
import { checkPushUrl } from '../../../src/transports/a2a/push-target.js';

describe('checkPushUrl', () => {
  const policy = { allowHosts: ['hooks.example.com', '*.example.org'] };

  it('admits allow-listed hosts and subdomains of a wildcard entry', () => {
    expect(checkPushUrl('https://hooks.example.com/a2a', policy).hostname).toBe('hooks.example.com');
    expect(checkPushUrl('https://a.b.example.org/x', policy).hostname).toBe('a.b.example.org');
  });

  it('refuses other hosts, look-alikes, loopback without the dev policy, other schemes and credentials', () => {
    expect(() => checkPushUrl('https://evil.com/x', policy)).toThrow(/not allowed/);
    expect(() => checkPushUrl('https://hooks.example.com.evil.com/x', policy)).toThrow(/not allowed/);
    expect(() => checkPushUrl('https://example.org/x', policy)).toThrow(/not allowed/);
    expect(() => checkPushUrl('http://127.0.0.1:8080/x', policy)).toThrow(/dev node only/);
    expect(() => checkPushUrl('http://[::1]:8080/x', policy)).toThrow(/dev node only/);
    expect(() => checkPushUrl('http://localhost/x', policy)).toThrow(/dev node only/);
    expect(() => checkPushUrl('ftp://hooks.example.com/x', policy)).toThrow(/http or https/);
    expect(() => checkPushUrl('https://u:p@hooks.example.com/x', policy)).toThrow(/credentials/);
    expect(() => checkPushUrl('not a url', policy)).toThrow(/not a URL/);
  });

  it('admits loopback on a dev node', () => {
    expect(checkPushUrl('http://127.0.0.1:9/x', { allowLoopback: true }).port).toBe('9');
  });
});
