import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import { parseTarget } from '../../../src/runtime/routing/index.js';
import { httpPeerTransport, peerRemoteInvoker } from '../../../src/transports/peer/index.js';
import { runRouteTransportContract } from '../../runtime/routing/transport-contract.js';
import { agent, request, startNode } from './helpers.js';

async function fixture() {
  const far = await startNode({
    agents: [
      agent('worker', {
        'demo.work': (input) => ({ far: input }),
        'demo.fail': () => {
          throw new PlexusError('PRECONDITION_FAILED', 'the far guard did not hold');
        },
      }),
    ],
  });
  const near = await startNode();
  const peers = [{ url: far.url }];
  const directory = await near.connect(peers);
  const transport = httpPeerTransport({
    peers,
    invoker: peerRemoteInvoker({ key: near.key, peers: directory, retry: { delaysMs: [1, 1] } }),
  });
  let closed = false;
  const closeFar = async (): Promise<void> => {
    if (!closed) await far.close();
    closed = true;
  };
  return {
    far,
    transport,
    reachable: parseTarget(`${far.url}/worker`),
    foreign: parseTarget('http://127.0.0.1:9/worker'),
    ok: () => request('demo.work', 'x', 'capability:demo.work'),
    expected: { far: 'x' },
    failing: () => request('demo.fail', null, 'capability:demo.fail'),
    makeUnreachable: closeFar,
    close: async () => {
      await near.close();
      await closeFar();
    },
  };
}

runRouteTransportContract('http-peer', fixture);

describe('httpPeerTransport', () => {
  it('sends to the agent named in the target, or keeps `to` for a bare peer URL', async () => {
    const f = await fixture();
    try {
      const named = await f.transport.invoke(
        { target: f.reachable, envelope: request('demo.work', 1, 'someone-else') },
        new AbortController().signal,
      );
      expect(named.data).toEqual({ far: 1 });
      const bare = await f.transport.invoke(
        { target: parseTarget(f.far.url), envelope: request('demo.work', 2, 'capability:demo.work') },
        new AbortController().signal,
      );
      expect(bare.data).toEqual({ far: 2 });
      expect(f.transport.supports(parseTarget('https://127.0.0.1:1'))).toBe(false);
    } finally {
      await f.close();
    }
  });
});
