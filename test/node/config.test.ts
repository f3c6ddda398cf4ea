import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import {
  loadNodeConfig,
  nodeInitFromConfig,
  parseNodeConfig,
  parseNodeConfigText,
  resolveNodeInit,
} from '../../src/node/index.js';

const HASH = 'a'.repeat(64);

function refusal(run: () => unknown): PlexusError {
  try {
    run();
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a PlexusError');
}

describe('parseNodeConfigText', () => {
  it('reads every setting, resolving paths against the base directory', () => {
    const config = parseNodeConfigText(
      [
        'port: 0',
        'host: 127.0.0.1',
        'data: ./state',
        'dev: true',
        'demo: true',
        'store: memory',
        'drainMs: 500',
        'tls: { cert: c.pem, key: k.pem }',
        'auth:',
        `  apiKeys: [{ hash: ${HASH}, subject: ci, scopes: [jobs:read], tenant: acme }]`,
        '  trustedPeers: [did:key:z6MkExample]',
        'peers:',
        '  - { url: "http://127.0.0.1:3101/", token: abc }',
        'peerPollMs: 250',
        'limits: { bodyLimitBytes: 2048, defaultTimeoutMs: 1000 }',
      ].join('\n'),
      'plexus.yaml',
      '/base',
    );
    expect(config).toEqual({
      port: 0,
      host: '127.0.0.1',
      data: '/base/state',
      dev: true,
      demo: true,
      store: 'memory',
      drainMs: 500,
      tls: { cert: '/base/c.pem', key: '/base/k.pem' },
      auth: {
        apiKeys: [{ hash: HASH, subject: 'ci', scopes: ['jobs:read'], tenant: 'acme' }],
        trustedPeers: ['did:key:z6MkExample'],
      },
      peers: [{ url: 'http://127.0.0.1:3101', token: 'abc' }],
      peerPollMs: 250,
      limits: { bodyLimitBytes: 2048, defaultTimeoutMs: 1000 },
    });
  });

  it('takes an empty file as no settings', () => {
    expect(parseNodeConfigText('', 'plexus.yaml')).toEqual({});
    expect(parseNodeConfig(null)).toEqual({});
  });

  it.each([
    ['port: 70000', 'plexus.yaml: "port" must be a whole number from 0 to 65535, got 70000'],
    ['port: "3100"', 'plexus.yaml: "port" must be a whole number from 0 to 65535, got "3100"'],
    ['dev: yes please', 'plexus.yaml: "dev" must be true or false, got "yes please"'],
    ['colour: blue', 'plexus.yaml: "colour" is not a known setting'],
    ['store: postgres', 'plexus.yaml: "store" must be sqlite or memory, got "postgres"'],
    ['limits: { bodyLimit: 1 }', 'plexus.yaml: "limits.bodyLimit" is not a known setting'],
    ['limits: { bodyLimitBytes: 0 }', 'plexus.yaml: "limits.bodyLimitBytes" must be a whole number from 1'],
    [
      'auth: { apiKeys: [{ hash: plx_secret, subject: ci }] }',
      'plexus.yaml: "auth.apiKeys[0].hash" must be the key\'s SHA-256',
    ],
    [
      `auth: { apiKeys: [{ hash: ${HASH} }] }`,
      'plexus.yaml: "auth.apiKeys[0].subject" must be a non-empty string',
    ],
    ['peers: [{ url: ftp://x }]', 'plexus.yaml: "peers[0].url" must be an http:// or https:// URL'],
    ['peers: { url: http://x }', 'plexus.yaml: "peers" must be a list, got a mapping'],
    ['tls: { cert: a.pem }', 'plexus.yaml: "tls.key" must be a non-empty string'],
    ['- 1', 'plexus.yaml: "" must be a mapping, got a list'],
  ])('refuses %j naming the field', (text, message) => {
    const error = refusal(() => parseNodeConfigText(text, 'plexus.yaml'));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message.startsWith(message)).toBe(true);
  });

  it('reports broken YAML with its line and column', () => {
    const error = refusal(() => parseNodeConfigText('port: 1\nhost: [a,\n', 'plexus.yaml'));
    expect(error.code).toBe('PARSE_ERROR');
    expect(error.message).toMatch(/^plexus\.yaml: invalid YAML at line \d+, column \d+/);
  });

  it('refuses a key given twice', () => {
    expect(refusal(() => parseNodeConfigText('port: 1\nport: 2\n')).code).toBe('PARSE_ERROR');
  });
});

describe('loadNodeConfig', () => {
  it('reads a file and resolves paths against its directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plexus-config-'));
    writeFileSync(join(dir, 'plexus.yaml'), 'data: node-data\nport: 0\n');
    expect(await loadNodeConfig(join(dir, 'plexus.yaml'))).toEqual({ data: join(dir, 'node-data'), port: 0 });
  });

  it('says a missing file is missing', async () => {
    await expect(loadNodeConfig('/nonexistent/plexus.yaml')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/no such file/),
    });
  });
});

describe('nodeInitFromConfig', () => {
  it('lets flags win over the file', () => {
    const init = nodeInitFromConfig(
      { port: 1, dev: false, limits: { bodyLimitBytes: 10 } },
      { port: 2, dev: true },
    );
    expect(init).toEqual({ port: 2, dev: true, bodyLimitBytes: 10 });
  });
});

describe('resolveNodeInit', () => {
  it('fills in the defaults', () => {
    expect(resolveNodeInit({}, '/here')).toEqual({
      dataDir: '/here/.plexus',
      store: 'sqlite',
      host: '127.0.0.1',
      port: 3100,
      dev: false,
      demo: false,
      primitives: true,
      bodyLimitBytes: 1_048_576,
      drainMs: 10_000,
    });
  });

  it.each(['0.0.0.0', '192.168.1.10', '::', ''])(
    'refuses the non-loopback host %j without TLS (D14)',
    (host) => {
      const error = refusal(() => resolveNodeInit({ host }));
      expect(error.code).toBe('INVALID_PARAMS');
      expect(error.message).toMatch(/without TLS: a non-loopback listener needs HTTPS \(D14\)/);
    },
  );

  it('accepts a non-loopback host with TLS, and loopback hosts without', () => {
    expect(resolveNodeInit({ host: '0.0.0.0', tls: { cert: 'c', key: 'k' } }).host).toBe('0.0.0.0');
    expect(resolveNodeInit({ host: '::1' }).host).toBe('::1');
    expect(resolveNodeInit({ host: 'localhost' }).host).toBe('localhost');
  });

  it('refuses a bad port, body limit or drain bound', () => {
    expect(refusal(() => resolveNodeInit({ port: -1 })).message).toMatch(/port/);
    expect(refusal(() => resolveNodeInit({ bodyLimitBytes: 0 })).message).toMatch(/bodyLimitBytes/);
    expect(refusal(() => resolveNodeInit({ drainMs: 1.5 })).message).toMatch(/drainMs/);
  });
});

describe('the demo setting', () => {
  it('takes true, false or a list of demo agent ids', () => {
    expect(parseNodeConfigText('demo: [echo, math]')).toEqual({ demo: ['echo', 'math'] });
    expect(parseNodeConfigText('demo: false')).toEqual({ demo: false });
    expect(refusal(() => parseNodeConfigText('demo: [echo, clock]')).message).toMatch(
      /"demo\[1\]" must name a demo agent \(echo, text, math, demo, conformance, tck\), got "clock"/,
    );
    expect(refusal(() => parseNodeConfigText('demo: 3')).message).toMatch(
      /"demo" must be true, false or a list/,
    );
  });
});
