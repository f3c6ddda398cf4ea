/**
 * The placeholder candidate of a target whose peer has not announced the agent (an http(s)
 * peer URL or a `p2p://` peer, MESH-37): it accepts any input and output, and its schemas are
 * the same value on every request, so the schema validator (whose compile cache is keyed by
 * schema object) compiles nothing per call — a fresh `{}` per request made Ajv compile twice
 * on every forwarded call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { schemaValidator } from '../../../src/core/schema-validator.js';
import { TARGET_EXTENSION } from '../../../src/runtime/routing/index.js';
import type { TargetRoutes } from '../../../src/runtime/routing/remote.js';
import { resolveTargets } from '../../../src/runtime/routing/router.js';
import { generateKeyPair, identityFromPublicKey } from '../../../src/security/index.js';
import { request, startRuntime, type Harness } from '../helpers.js';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.runtime.stop();
});

const FAR = 'http://far.test:3100';

const routes: TargetRoutes = {
  peerOf: (url) => (url === `${FAR}/worker` ? { peer: FAR, agent: 'worker' } : undefined),
  checkPolicy: () => undefined,
  carries: (target) => target.scheme === 'p2p',
};

function targeted(target: string, data: unknown): Envelope {
  return { ...request('demo.work', data as never, 'worker'), extensions: { [TARGET_EXTENSION]: target } };
}

describe('placeholder candidates', () => {
  const did = identityFromPublicKey(generateKeyPair().publicKey).did;
  for (const target of [`${FAR}/worker`, `p2p://${did}/worker`]) {
    it(`accept anything with one schema value on every request (${target.split(':')[0]})`, async () => {
      const h = await startRuntime();
      harnesses.push(h);
      const { registry } = h.runtime.agents;
      const first = resolveTargets(registry, targeted(target, 1), routes);
      const second = resolveTargets(registry, targeted(target, { any: ['thing'] }), routes);
      const [a, b] = [first.candidates[0], second.candidates[0]];
      expect(a?.card.origin).toBe('remote');
      expect(a?.card.id).toBe('worker');
      // the same schema value each time: the validator's cache hits
      expect(b?.capability.input).toBe(a?.capability.input);
      expect(b?.capability.output).toBe(a?.capability.output);
      // and it accepts whatever the far agent takes and answers
      for (const value of [1, 'x', null, { any: ['thing'] }, [1, 2]]) {
        expect(schemaValidator().validate(a!.capability.input, value)).toEqual([]);
        expect(schemaValidator().validate(a!.capability.output, value)).toEqual([]);
      }
    });
  }
});
