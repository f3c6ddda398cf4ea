/**
 * The faces a node serves by default (issue 12 item 1, docs/decisions/faces.md): today's set,
 * in registration order, each made with the options of the node's init that concern it.
 * Adding a face to every node is one line here.
 */
import type { FaceFactory } from '../transports/face.js';
import { discoveryFace } from '../transports/http/discovery-face.js';
import { emergenceFace } from '../transports/http/emergence-face.js';
import { esrpFace } from '../transports/http/esrp-face.js';
import { healthFace } from '../transports/http/health-face.js';
import { paymentFace } from '../transports/http/payment-face.js';
import { peerFace } from '../transports/peer/peer-face.js';
import { mcpFace } from '../transports/mcp/mcp-face.js';
import { a2aFace } from '../transports/a2a/a2a-face.js';
import { a2aBridgeFace } from '../transports/a2a-bridge/a2a-bridge-face.js';
import { mcpBridgeFace } from '../transports/mcp-bridge/mcp-bridge-face.js';
import { meshFace } from '../transports/mesh/mesh-face.js';
import { metricsFace } from '../transports/metrics/metrics-face.js';
import { wsJsonRpcFace } from '../transports/ws-jsonrpc/ws-jsonrpc-face.js';
import { uiFace } from '../transports/ui/ui-face.js';
import type { NodeInit } from './node-init.js';

/**
 * The default faces of a node with `init`: health, ESRP, Emergence (HELLOs expire after
 * `helloTtlMs`), discovery, the peer route (admitting `trustedPeers` and the `did` of each of
 * `peers`), the 402 payment routes when `payments` is set, WebSocket JSON-RPC, MCP (`/mcp`),
 * A2A (agent cards, JSON-RPC at `/a2a`), the metrics (`/metrics`, open when `metrics.public`)
 * and the dashboard (`/ui/`).
 *
 * @example
 * createNode({ ...init, faces: [...defaultFaces(init), myFace()] });
 */
export function defaultFaces(init: NodeInit = {}): readonly FaceFactory[] {
  const trusted = [
    ...(init.trustedPeers ?? []),
    ...(init.peers ?? []).flatMap((p) => (p.did === undefined ? [] : [p.did])),
  ];
  return [
    healthFace(),
    esrpFace(),
    emergenceFace(init.helloTtlMs === undefined ? {} : { helloTtlMs: init.helloTtlMs }),
    discoveryFace(),
    peerFace(trusted.length === 0 ? {} : { trustedPeers: trusted }),
    ...(init.payments === undefined ? [] : [paymentFace(init.payments)]),
    wsJsonRpcFace(),
    mcpFace(),
    a2aFace({
      push: {
        allowLoopback: init.dev === true,
        ...(init.a2a?.push?.allowHosts === undefined ? {} : { allowHosts: init.a2a.push.allowHosts }),
      },
    }),
    ...((init.a2a?.agents?.length ?? 0) > 0 || init.a2a?.announce?.enabled === true
      ? [
          a2aBridgeFace({
            agents: init.a2a?.agents ?? [],
            ...(init.a2a?.announce?.enabled === true
              ? {
                  announce: {
                    allowLoopback: init.dev === true,
                    allowHosts: init.a2a.announce.allowHosts ?? [],
                  },
                }
              : {}),
          }),
        ]
      : []),
    ...((init.mcp?.servers?.length ?? 0) > 0 || init.mcp?.register === true
      ? [mcpBridgeFace({ servers: init.mcp?.servers ?? [], register: init.mcp?.register === true })]
      : []),
    ...(init.mesh?.enabled === true
      ? [
          meshFace(init.mesh, {
            ...(init.bodyLimitBytes === undefined ? {} : { maxFrameBytes: init.bodyLimitBytes }),
            ...(trusted.length === 0 ? {} : { trustedPeers: trusted }),
          }),
        ]
      : []),
    metricsFace({ public: init.metrics?.public === true }),
    uiFace(),
  ];
}
