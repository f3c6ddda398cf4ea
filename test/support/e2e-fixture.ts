/**
 * The preamble the e2e tests share: check that `dist/` is built, start a real node process,
 * kill every process and remove every temporary directory afterwards, and open a WebSocket
 * on a node's `/rpc`.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  built,
  cleanup,
  startNodeProcess,
  type NodeProcess,
  type StartNodeProcessInit,
} from '../e2e/harness.js';

/**
 * Registers the suite's `beforeAll` (fails unless `npm run build` has run) and `afterAll`
 * ({@link cleanup}: every node process killed, every temporary directory removed).
 */
export function useBuiltDist(): void {
  beforeAll(() => {
    expect(built(), 'run `npm run build` first').toBe(true);
  });
  afterAll(cleanup);
}

/** The node process of a suite, set once its `beforeAll` has run. */
export interface NodeProcessFixture {
  readonly node: NodeProcess;
}

/**
 * {@link useBuiltDist}, then one node process for the whole suite, started in `beforeAll`
 * with `init` (default: `--dev --demo` on a free port).
 * @example
 * const e2e = useNodeProcess();
 * it('answers', async () => { await get(e2e.node.url, '/healthz'); });
 */
export function useNodeProcess(init: StartNodeProcessInit = {}): NodeProcessFixture {
  useBuiltDist();
  let started: NodeProcess | undefined;
  beforeAll(async () => {
    started = await startNodeProcess(init);
  });
  return {
    get node(): NodeProcess {
      if (started === undefined) throw new Error('the node process is started in beforeAll');
      return started;
    },
  };
}

/** A WebSocket on `url`'s `/rpc` (http → ws), once it is open; rejects on its first error. */
export async function openRpcSocket(url: string, headers?: Record<string, string>): Promise<WebSocket> {
  const ws = new WebSocket(
    `${url.replace(/^http/, 'ws')}/rpc`,
    headers === undefined ? undefined : { headers },
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      resolve();
    });
    ws.once('error', reject);
  });
  return ws;
}
