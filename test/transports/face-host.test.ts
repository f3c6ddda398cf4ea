/**
 * The face host and its shared upgrade paths: faces are registered in order, started after
 * listening and stopped in reverse order, once; two faces share the HTTP server's `upgrade`
 * event by path; a path nobody claimed is refused 404; a path or face name is claimed once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PlexusError } from '../../src/core/errors.js';
import { createRuntime } from '../../src/runtime/index.js';
import { authenticator, envelopeVerifier } from '../../src/security/index.js';
import { memoryArtifactStore, memoryEventLog } from '../../src/store/index.js';
import type { Face, FaceComponents, FaceFactory } from '../../src/transports/face.js';
import { faceHost, type FaceHost } from '../../src/transports/face-host.js';

function components(): FaceComponents {
  const log = memoryEventLog();
  return {
    runtime: createRuntime({ log, nodeId: 'did:example:node', agents: [] }),
    log,
    artifacts: memoryArtifactStore(),
    auth: authenticator({ allowAnonymous: true }),
    verifier: envelopeVerifier(),
    nodeId: 'did:example:node',
  };
}

const readiness = { ready: () => true, unreadyReason: () => undefined };

/** A face that answers upgrades on `path` by writing `name` and records its lifecycle in `calls`. */
function upgradeFace(name: string, path: string, calls: string[]): FaceFactory {
  return (): Face => ({
    name,
    register(server) {
      calls.push(`register ${name}`);
      server.upgrade([path], (_request, socket) => {
        socket.end(
          `HTTP/1.1 418 I'm a teapot\r\nConnection: close\r\nX-Face: ${name}\r\nContent-Length: 0\r\n\r\n`,
        );
      });
    },
    start: () => {
      calls.push(`start ${name}`);
      return Promise.resolve();
    },
    stop: () => {
      calls.push(`stop ${name}`);
      return Promise.resolve();
    },
  });
}

/** The status and `X-Face` header of an upgrade on `path`. */
function upgradeOn(port: number, path: string): Promise<{ status: number; face: string | undefined }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    ws.once('unexpected-response', (_request, response) => {
      const face = response.headers['x-face'];
      resolve({ status: response.statusCode ?? 0, face: typeof face === 'string' ? face : undefined });
      response.resume();
    });
    ws.once('open', () => {
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('error', () => undefined);
  });
}

describe('faceHost', () => {
  const hosts: FaceHost[] = [];
  afterEach(async () => {
    for (const host of hosts.splice(0)) {
      await host.stop();
      await host.app.close();
    }
  });

  const host = (): FaceHost => {
    const h = faceHost({ components: components(), bodyLimitBytes: 1024, readiness });
    hosts.push(h);
    return h;
  };

  it('registers, starts and stops faces in order (stop in reverse, once)', async () => {
    const calls: string[] = [];
    const h = host();
    await h.add(upgradeFace('one', '/one', calls));
    await h.add(upgradeFace('two', '/two', calls));
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    await h.start();
    await h.stop();
    await h.stop();
    expect(calls).toEqual(['register one', 'register two', 'start one', 'start two', 'stop two', 'stop one']);
  });

  it('shares the upgrade event by path and refuses other paths with 404', async () => {
    const h = host();
    await h.add(upgradeFace('one', '/one', []));
    await h.add(upgradeFace('two', '/two', []));
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (h.app.server.address() as { port: number }).port;
    expect(await upgradeOn(port, '/one')).toEqual({ status: 418, face: 'one' });
    expect(await upgradeOn(port, '/two?x=1')).toEqual({ status: 418, face: 'two' });
    expect(await upgradeOn(port, '/three')).toEqual({ status: 404, face: undefined });
  });

  it('refuses a second face of the same name and a path claimed twice', async () => {
    const h = host();
    await h.add(upgradeFace('one', '/one', []));
    await expect(h.add(upgradeFace('one', '/other', []))).rejects.toThrow(PlexusError);
    await expect(h.add(upgradeFace('two', '/one', []))).rejects.toThrow(/claimed by another face/);
  });
});
