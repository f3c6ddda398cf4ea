/**
 * The contract every face of a node passes (issue 12 item 1, docs/decisions/faces.md):
 * `runFaceContract({ name, create })` serves the face alone on a real node (127.0.0.1, port 0,
 * memory store, authentication on with API keys for tenants A and B) and checks that
 *
 * - it starts and stops twice cleanly (its `start` and `stop` run once per node run, a second
 *   `stop()` is harmless, nothing of it is left listening);
 * - it answers malformed, too-deep (depth > 256) and oversized input in its own error form:
 *   never a 5xx, never a fastify framework body (`FST_ERR_*`);
 * - it takes the tenant from the credential: a bearer for tenant B never acts as tenant A;
 * - when the face gives its error table, the table covers every Plexus error code.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/errors.js';
import type { JsonValue } from '../../src/core/json.js';
import { createNode, type Node } from '../../src/node/node.js';
import type { NodeInit } from '../../src/node/node-init.js';
import { defineAgent } from '../../src/runtime/index.js';
import { generateApiKey } from '../../src/security/index.js';
import type { Face, FaceFactory } from '../../src/transports/face.js';

/** The body limit of the contract's node, bytes. */
export const CONTRACT_BODY_LIMIT = 4096;

/** The verb of the contract's agent: it answers what it was asked, for the tenant check. */
export const WHOAMI_VERB = 'contract.whoami';

/** Where a face under test is served. */
export interface FaceTarget {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
}

/** One answer of a face, as the contract reads it. */
export interface FaceAnswer {
  /** The HTTP status (a WebSocket answer is 200: the message came back). */
  readonly status: number;
  /** The body (or message) text. */
  readonly text: string;
}

/** The input the contract sends, as text. */
export interface ContractInput {
  /** Which of the bad inputs it is. */
  readonly kind: 'malformed' | 'too-deep' | 'oversized';
  /** The text: broken JSON, JSON nested 300 deep, JSON longer than the body limit. */
  readonly text: string;
}

/** A face under test and how to talk to it. */
export interface FaceContractSubject {
  /** The face's factory. */
  readonly face: FaceFactory;
  /** More options of the node serving it (agents, primitives the face needs). */
  readonly init?: NodeInit;
  /** Sends a bad input to the face the way its own clients send input, with `authorization`. */
  send(target: FaceTarget, input: ContractInput, authorization: string): Promise<FaceAnswer>;
  /**
   * The error code of `answer` when it is in the face's own error form (whatever code form
   * the face uses); `undefined` when it is not.
   */
  errorCode(answer: FaceAnswer): string | undefined;
  /**
   * Makes the face start work (a call of {@link WHOAMI_VERB}, or whatever call the face runs)
   * with `authorization`, claiming tenant `claim` where the face's wire can say so.
   * Absent for a face that runs no call (discovery, health).
   */
  act?(target: FaceTarget, authorization: string, claim: string | undefined): Promise<FaceAnswer>;
}

/** Options of {@link runFaceContract}. */
export interface FaceContractInit {
  /** The face's name (the describe block). */
  readonly name: string;
  /** Makes the subject (called once per test). */
  readonly create: () => FaceContractSubject | Promise<FaceContractSubject>;
  /** The face's error table (code → its form of the code), when it has one. */
  readonly errorTable?: Readonly<Record<string, unknown>>;
  /**
   * Why the face runs no call for a tenant (discovery, health): the tenant check is left out.
   * Absent = the subject must have `act`.
   */
  readonly runsNoCalls?: string;
}

const keyA = generateApiKey();
const keyB = generateApiKey();
/** The bearer credentials of the contract's two tenants. */
export const CONTRACT_BEARERS = { a: `Bearer ${keyA.key}`, b: `Bearer ${keyB.key}` } as const;

const whoami = defineAgent({
  card: {
    id: 'contract',
    name: 'Contract agent',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: WHOAMI_VERB, input: true, output: true }],
  },
  create: () => ({
    [WHOAMI_VERB]: (_input: JsonValue, ctx) => ({
      tenant: ctx.envelope.tenantId ?? null,
      principal: ctx.principal?.id ?? null,
    }),
  }),
});

/** JSON text nested `depth` arrays deep. */
export function deepJson(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** The three bad inputs of the contract. */
export const CONTRACT_INPUTS: readonly ContractInput[] = [
  { kind: 'malformed', text: '{"verb": "contract.whoami", "data": [1, 2' },
  { kind: 'too-deep', text: deepJson(300) },
  { kind: 'oversized', text: JSON.stringify({ text: 'x'.repeat(CONTRACT_BODY_LIMIT * 2) }) },
];

interface Counted {
  readonly factory: FaceFactory;
  readonly counts: { register: number; start: number; stop: number };
}

/** Wraps `factory` to count the calls the node makes of its faces. */
function counted(factory: FaceFactory): Counted {
  const counts = { register: 0, start: 0, stop: 0 };
  return {
    counts,
    factory: (components) => {
      const face = factory(components);
      const wrapped: Face = {
        name: face.name,
        register: (server) => {
          counts.register++;
          return face.register(server);
        },
        start: async () => {
          counts.start++;
          await face.start?.();
        },
        stop: async () => {
          counts.stop++;
          await face.stop?.();
        },
      };
      return wrapped;
    },
  };
}

/** The tenants of the jobs the node has submitted so far. */
async function jobTenants(node: Node): Promise<(string | null)[]> {
  const events = await node.log.read();
  return events
    .filter((e) => e.type === 'job.submitted')
    .map((e) => {
      const tenant = (e.data as { tenantId?: unknown }).tenantId;
      return typeof tenant === 'string' ? tenant : null;
    });
}

/** Runs the face contract for one face. */
export function runFaceContract(init: FaceContractInit): void {
  describe(`face contract: ${init.name}`, () => {
    const dirs: string[] = [];
    const nodes: Node[] = [];
    afterEach(async () => {
      for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
      for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
    });

    const serve = async (face: FaceFactory, subject: FaceContractSubject): Promise<Node> => {
      const dataDir = await mkdtemp(join(tmpdir(), 'plexus-face-contract-'));
      dirs.push(dataDir);
      const node = createNode({
        primitives: false,
        ...subject.init,
        dataDir,
        store: 'memory',
        host: '127.0.0.1',
        port: 0,
        dev: false,
        bodyLimitBytes: CONTRACT_BODY_LIMIT,
        apiKeys: [
          { hash: keyA.hash, subject: 'alice', tenant: 'tenant-a' },
          { hash: keyB.hash, subject: 'bob', tenant: 'tenant-b' },
        ],
        agents: [whoami, ...(subject.init?.agents ?? [])],
        faces: [face],
      });
      nodes.push(node);
      await node.start();
      return node;
    };
    const target = (node: Node): FaceTarget => ({ url: node.url, port: node.port });

    it('starts and stops twice cleanly', async () => {
      const subject = await init.create();
      const { factory, counts } = counted(subject.face);
      for (const round of [1, 2]) {
        const node = await serve(factory, subject);
        expect(counts).toEqual({ register: round, start: round, stop: round - 1 });
        const answer = await subject.send(target(node), CONTRACT_INPUTS[0]!, CONTRACT_BEARERS.b);
        expect(answer.status).toBeLessThan(500);
        const { url } = node;
        await node.stop();
        await node.stop();
        expect(counts).toEqual({ register: round, start: round, stop: round });
        await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      }
    });

    for (const input of CONTRACT_INPUTS) {
      it(`answers ${input.kind} input in its own error form`, async () => {
        const subject = await init.create();
        const node = await serve(subject.face, subject);
        const answer = await subject.send(target(node), input, CONTRACT_BEARERS.b);
        expect(answer.status, answer.text).toBeLessThan(500);
        expect(answer.text).not.toMatch(/FST_/);
        expect(subject.errorCode(answer), answer.text).toBeDefined();
        // Still serving.
        const again = await subject.send(target(node), CONTRACT_INPUTS[0]!, CONTRACT_BEARERS.b);
        expect(again.status).toBeLessThan(500);
      });
    }

    if (init.runsNoCalls === undefined) {
      it('takes the tenant from the credential', async () => {
        const subject = await init.create();
        if (subject.act === undefined)
          throw new Error(`${init.name}: the subject has no act() and no runsNoCalls reason`);
        const act = subject.act.bind(subject);
        const node = await serve(subject.face, subject);
        const first = await act(target(node), CONTRACT_BEARERS.b, undefined);
        const unclaimed = await jobTenants(node);
        expect(unclaimed.length, first.text).toBeGreaterThan(0);
        expect(new Set(unclaimed)).toEqual(new Set(['tenant-b']));
        const claimed = await act(target(node), CONTRACT_BEARERS.b, 'tenant-a');
        expect(claimed.status).toBeLessThan(500);
        expect(await jobTenants(node)).not.toContain('tenant-a');
        // The tenant follows the credential: tenant A's bearer acts for tenant A.
        await act(target(node), CONTRACT_BEARERS.a, undefined);
        expect(await jobTenants(node)).toContain('tenant-a');
      });
    }

    if (init.errorTable !== undefined) {
      const table = init.errorTable;
      it('has an error table covering every Plexus error code', () => {
        expect(ERROR_CODES.filter((code) => !(code in table))).toEqual([]);
      });
    }
  });
}
