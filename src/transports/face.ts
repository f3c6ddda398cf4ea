/**
 * The seam every face of a node plugs into (issue 12 item 1, docs/decisions/faces.md): a face
 * is made by a {@link FaceFactory} from the node's {@link FaceComponents}, registers its HTTP
 * routes and WebSocket upgrade paths on the node's {@link FaceServer}, and may start and stop
 * work of its own (a listener of its own, timers) with the node. The node registers its faces
 * in order, starts them once it listens, and stops them in reverse order when it stops.
 *
 * Adding a face is one folder (its codec, routes and error form) plus one line in the node's
 * default face list (`node/faces.ts`).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Admission } from './admission.js';
import type { FaceComponents } from './face-components.js';

export type { FaceComponents } from './face-components.js';

/** Takes over one WebSocket upgrade (an HTTP `upgrade` event) on a path a face claimed. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Whether the node can serve now: what `GET /readyz` asks beyond its own checks. */
export interface FaceReadiness {
  /** False while the node is starting or draining. */
  ready(): boolean | Promise<boolean>;
  /** Why the node cannot serve now (e.g. its event log cannot be written), or `undefined`. */
  unreadyReason(): string | undefined;
}

/** What every face of a node shares: its limits, its admission gate and its readiness. */
export interface FaceServerOptions {
  /** The largest request body or message a face accepts, bytes. */
  readonly bodyLimitBytes: number;
  /**
   * The node's load shedding: HTTP requests are admitted by the server before any face decodes
   * them; a face reading its own connections (WebSocket, its own listener) admits each call here.
   * Absent = no bounds.
   */
  readonly admission?: Admission;
  /** The node's readiness. */
  readonly readiness: FaceReadiness;
}

/** Where a face is served: the node's one HTTP server (D15) and the options faces share. */
export interface FaceServer {
  /**
   * The node's fastify instance. A face registers its routes in a context of its own
   * (`http.register(...)`) with its own body parser, error handler and hooks; the root hooks
   * (admission, trace headers) and the root 404 and error handlers cover every face.
   */
  readonly http: FastifyInstance;
  /**
   * Claims WebSocket upgrades on `paths` (exact URL paths, no query): one `upgrade` listener
   * on the HTTP server hands each upgrade to the face whose path it names and refuses others
   * with 404.
   * @throws PlexusError `INVALID_PARAMS` when a path is already claimed or does not start with `/`.
   */
  upgrade(paths: readonly string[], handler: UpgradeHandler): void;
  /** The options every face shares. */
  readonly options: FaceServerOptions;
}

/**
 * One face of a node. A face with a listener of its own (a libp2p host, a stdio loop) opens
 * it in `start()`, called after the HTTP server listens, and closes it in `stop()`.
 */
export interface Face {
  /** The face's name (`esrp`, `hyperspace`, …): unique on a node. */
  readonly name: string;
  /** Registers the face's routes and upgrade paths; called once, before the server listens. */
  register(server: FaceServer): void | Promise<void>;
  /** Starts work of the face's own, once the server listens. */
  start?(): Promise<void>;
  /**
   * Stops the face: ends its connections and its own work. Called once the node stops
   * accepting requests, in reverse registration order; safe to call twice.
   */
  stop?(): Promise<void>;
}

/** Makes a face from the node's components; a face's own options are the factory's parameters. */
export type FaceFactory = (components: FaceComponents) => Face;
