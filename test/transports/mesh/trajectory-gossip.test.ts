/**
 * The trajectory check of the mesh's topic validator (MESH-30), one rejection at a time, with a
 * property test: whatever a peer signs on a trajectory topic, the validator either rejects it or
 * the improving primitive's own checks pass on it (an accepted message is always one the
 * library can take).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import { trajectoryTopic, validateTrajectory } from '../../../src/primitives/improving/index.js';
import {
  envelopeVerifier,
  generateKeyPair,
  identityFromPublicKey,
  signEnvelope,
} from '../../../src/security/index.js';
import { gossipValidator } from '../../../src/transports/mesh/gossip-validator.js';
import { isTrajectoryTopic, trajectoryProblem } from '../../../src/transports/mesh/trajectory-gossip.js';

const key = generateKeyPair();
const peerId = identityFromPublicKey(key.publicKey).peerId;
const TOPIC = trajectoryTopic('web-research');
const bytes = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const validator = () =>
  gossipValidator({
    verifier: envelopeVerifier(),
    maxMessageBytes: 64 * 1024,
    payloadCheck: (topic, d, signer) => {
      if (!isTrajectoryTopic(topic)) return undefined;
      const reason = trajectoryProblem(topic, d, signer);
      return reason === undefined ? undefined : { code: 'TRAJECTORY_REJECTED', reason };
    },
  });
const judge = (d: JsonValue, topic = TOPIC) =>
  validator().validate(topic, bytes(signEnvelope(d, { key, domain: topic, from: 'peerId' })));

const good: JsonObject = {
  taskType: 'web-research',
  input: { query: 'ssb' },
  output: { summary: '…' },
  steps: [{ action: 'search', tool: 'web-search', duration: 195 }],
  reward: 0.91,
  peerId,
};

describe('the trajectory check', () => {
  it('accepts a well-formed trajectory of the topic’s task type signed by its author', () => {
    expect(judge(good).result).toBe('accept');
    const anonymous: JsonObject = { ...good };
    delete anonymous['peerId'];
    expect(judge(anonymous).result).toBe('accept');
  });

  it.each<[string, JsonValue, RegExp]>([
    ['not an object', [good], /not an object/],
    ['another task type', { ...good, taskType: 'other' }, /not the topic's/],
    ['no output', { ...good, output: undefined as unknown as JsonValue }, /no input or no output/],
    ['a reward above 1', { ...good, reward: 1.5 }, /reward/],
    ['steps that are not a list', { ...good, steps: 'all of them' }, /steps/],
    ['another author', { ...good, peerId: '12D3KooWSomeoneElse' }, /names peer/],
  ])('rejects %s', (_what, d, reason) => {
    const verdict = judge(d);
    expect(verdict).toMatchObject({ result: 'reject', code: 'TRAJECTORY_REJECTED' });
    expect(verdict.result === 'reject' ? verdict.reason : '').toMatch(reason);
  });

  it('leaves other topics to their own checks', () => {
    expect(judge({ anything: true }, 'hyperspace/crdt/sync/memory').result).toBe('accept');
  });

  it('accepts only what the library would take (property)', () => {
    const anyJson = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;
    const shaped = fc.record({
      taskType: fc.constantFrom('web-research', 'other'),
      input: anyJson,
      output: anyJson,
      steps: fc.oneof(
        fc.array(fc.dictionary(fc.constantFrom('action', 'tool', 'duration'), anyJson), { maxLength: 3 }),
        anyJson,
      ),
      reward: fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), anyJson),
    }) as fc.Arbitrary<JsonValue>;
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(shaped, anyJson, fc.constant(good)), (d) => {
        const verdict = judge(d);
        if (verdict.result === 'accept') {
          accepted += 1;
          const o = d as JsonObject;
          expect(o['taskType']).toBe('web-research');
          expect(() => {
            validateTrajectory({
              taskType: 'web-research',
              input: o['input'] ?? null,
              output: o['output'] ?? null,
              steps: o['steps'] as JsonValue[],
              reward: o['reward'] as number,
            });
          }).not.toThrow();
        }
      }),
      { seed: 20261127, numRuns: 300 },
    );
    expect(accepted).toBeGreaterThan(0); // the property was exercised on accepted messages
  });
});
