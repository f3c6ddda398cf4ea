/**
 * Resource subscriptions of one MCP session (issue 13 item 4, docs/decisions/mcp.md MCP-12):
 * a subscribed `plexus://jobs/{id}` follows the job's events in the log (`runtime.jobs.watch`
 * from the log's head at subscribe time) and sends `notifications/resources/updated` for each,
 * until the job's final event, `unsubscribe` or the session's end; a subscribed agent card is
 * told when the face sees the card change (`touch`). No polling.
 */
import type { Runtime } from '../../runtime/index.js';
import { jobIdOfUri } from './mcp-resources.js';

/** A session's subscriptions. */
export interface Subscriptions {
  /** Subscribes `uri` (again: no change); resolves once its changes are followed. */
  add(uri: string): Promise<void>;
  /** Unsubscribes `uri` (not subscribed: no change). */
  remove(uri: string): void;
  /** Sends `updated` for `uri` when it is subscribed. */
  touch(uri: string): void;
  /** Ends every subscription. */
  close(): void;
}

/** What subscriptions need. */
export interface SubscriptionsInit {
  readonly runtime: Runtime;
  /** The log's head now (where a job's watch starts). */
  headSeq(): Promise<number>;
  /** Sends `notifications/resources/updated` for `uri`. */
  updated(uri: string): Promise<void>;
}

/** The subscriptions of one session. */
export function sessionSubscriptions(init: SubscriptionsInit): Subscriptions {
  const live = new Map<string, AbortController>();
  const follow = async (uri: string, jobId: string, afterSeq: number, signal: AbortSignal): Promise<void> => {
    try {
      for await (const event of init.runtime.jobs.watch(jobId, { afterSeq, signal })) {
        await init.updated(uri).catch(() => undefined);
        if (event.terminal) break;
      }
    } catch {
      // the session ended or the job is gone: nothing more to tell
    }
  };
  return {
    async add(uri) {
      if (live.has(uri)) return;
      const controller = new AbortController();
      live.set(uri, controller);
      const jobId = jobIdOfUri(uri);
      if (jobId === undefined) return;
      // the head before subscribe answers: no change after the answer is missed
      const afterSeq = await init.headSeq();
      if (!controller.signal.aborted) void follow(uri, jobId, afterSeq, controller.signal);
    },
    remove(uri) {
      live.get(uri)?.abort();
      live.delete(uri);
    },
    touch(uri) {
      if (live.has(uri)) init.updated(uri).catch(() => undefined);
    },
    close() {
      for (const controller of live.values()) controller.abort();
      live.clear();
    },
  };
}
