/**
 * `plexus mesh status`: the mesh of a running node (its `GET /v1/mesh`): peer id, addresses,
 * connected peers with latency and score, each topic's mesh size (docs/mesh.md).
 */
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import type { CliIo } from '../io.js';
import { nodeJson, nodeTarget } from '../node-client.js';

interface MeshOptions {
  readonly node?: string;
  readonly token?: string;
  readonly json: boolean;
}

interface ShownStatus {
  readonly peerId: string;
  readonly addresses: readonly string[];
  readonly peers: readonly {
    peerId: string;
    latencyMs: number | null;
    score: number;
    graylisted?: boolean;
  }[];
  readonly topics: readonly { topic: string; meshPeers: number }[];
  readonly accepted: number;
  readonly rejected: number;
  readonly ignored?: number;
  readonly stale?: number;
}

/** Adds `mesh status` to the program. */
export function registerMesh(program: Command, io: CliIo): void {
  const mesh = program.command('mesh').description('the libp2p mesh of a running node');
  mesh
    .command('status')
    .description('peer id, addresses, peers and topics (GET /v1/mesh)')
    .option('-n, --node <url>', 'the node (default $PLEXUS_NODE or http://127.0.0.1:3100)')
    .option('-t, --token <token>', 'bearer token or API key (default $PLEXUS_TOKEN)')
    .option('--json', 'print JSON', false)
    .action(async (opts: MeshOptions) => {
      const body = (await nodeJson(nodeTarget(opts), '/v1/mesh', 'read the mesh status')) as
        ShownStatus | undefined;
      if (typeof body?.peerId !== 'string') {
        throw new PlexusError('INTERNAL', 'the node answered GET /v1/mesh without a peer id');
      }
      if (opts.json) {
        io.stdout(`${JSON.stringify(body)}\n`);
        return;
      }
      io.stdout(`peer id   ${body.peerId}\n`);
      for (const address of body.addresses) io.stdout(`address   ${address}\n`);
      for (const p of body.peers) {
        const latency = p.latencyMs === null ? 'no ping' : `${String(p.latencyMs)} ms`;
        const gray = p.graylisted === true ? '  graylisted' : '';
        io.stdout(`peer      ${p.peerId}  ${latency}  score ${p.score.toFixed(2)}${gray}\n`);
      }
      for (const t of body.topics) io.stdout(`topic     ${t.topic}  mesh ${String(t.meshPeers)}\n`);
      const ignored =
        body.ignored === undefined ? '' : `, ${String(body.ignored)} ignored (graylisted senders)`;
      const stale =
        body.stale === undefined ? '' : `, ${String(body.stale)} stale (signed before this node started)`;
      io.stdout(
        `gossip    ${String(body.accepted)} accepted, ${String(body.rejected)} rejected${ignored}${stale}\n`,
      );
    });
}
