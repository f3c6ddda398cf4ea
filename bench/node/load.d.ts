// Types for load.js, so TypeScript tests can drive the load generator (the bench files are
// plain JavaScript; see the JSDoc in load.js for the full contract).

/** How the load generator talks to a subject. */
export type ClientKindName = 'http' | 'ws-jsonrpc' | 'mcp-sdk' | 'a2a-sdk';

/** One face under test. */
export interface Subject {
  /** The row's name in the table. */
  name: string;
  /** Starts the server (in its own process) and returns its base URL. */
  start: () => Promise<{ url: string; stop: () => Promise<void>; pid?: number | undefined }>;
  client: ClientKindName;
  /** Path under the base URL. */
  path?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Request number `i` of a run (body, `{ method, params }`, `{ name, arguments }` or `{ message }`). */
  makeRequest: (i: number) => unknown;
  /** Whether `answer` is right for `request`; default: an echo. */
  check?: (request: unknown, answer: unknown, i: number) => boolean;
  /** `mcp-sdk` only: call with `onprogress` (a progress token). @default false */
  progress?: boolean;
  note?: string;
}

/** Options of a load run. */
export interface LoadInit {
  subject: Subject;
  url: string;
  /** @default 50 */
  clients?: number;
  /** @default 4 when `requests` is not given */
  seconds?: number;
  requests?: number;
  /** @default 0 */
  warmupSeconds?: number;
  /** @default 10000 */
  timeoutMs?: number;
  /** @default 120 */
  maxSeconds?: number;
  serverPid?: number | undefined;
}

/** What a load run measured. `sent` = `ok` + `errors`; latencies are in ms. */
export interface LoadResult {
  name: string;
  client: ClientKindName;
  clients: number;
  sent: number;
  ok: number;
  errors: number;
  firstError: string | undefined;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  serverCpu: number | undefined;
  loadCpu: number | undefined;
  /** CPU time of the server's main thread (its event loop) / wall time. */
  serverMainCpu: number | undefined;
  /** Server CPU microseconds (all threads) per answered request. */
  serverUsPerCall: number | undefined;
}

/** Options of `forkLoad`: the subject is named and looked up in `module` by the load process. */
export type ForkLoadInit = Omit<LoadInit, 'subject'> & { module: string; subject: string };

/** The `p`-th percentile (0–100) of ascending `sorted`, by nearest rank; NaN when empty. */
export function percentile(sorted: Float64Array | number[], p: number): number;

/** Runs load in this process. Throws on an unknown client kind or a client that cannot open. */
export function runLoad(init: LoadInit): Promise<LoadResult>;

/** Runs load in a separate process. Rejects with the child's error, or if it outlives its bound. */
export function forkLoad(init: ForkLoadInit): Promise<LoadResult>;
