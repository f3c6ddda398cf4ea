/**
 * The push notification configs of A2A tasks (issue 14 item 2, docs/decisions/a2a.md A2A-12),
 * kept in the event log (`a2a.push_config.set`, `a2a.push_config.deleted`, tenant-scoped) and
 * held in memory, rebuilt from the log when the face starts: a config outlives a restart like
 * the task it follows.
 */
import type { JsonObject } from '../../core/json.js';
import type { EventLog } from '../../store/index.js';
import type { SignalOptions } from '../../store/event-log.js';

/** One stored config (the fields of A2A's `TaskPushNotificationConfig` Plexus keeps). */
export interface PushConfig {
  readonly id: string;
  readonly taskId: string;
  readonly url: string;
  /** Sent as `X-A2A-Notification-Token`, when set. */
  readonly token?: string;
  /** Sent as `Authorization: <scheme> <credentials>`, when set. */
  readonly authentication?: { readonly scheme: string; readonly credentials: string };
  /** The tenant of the task (and of whoever set the config). */
  readonly tenant?: string;
}

declare module '../../store/event-map.js' {
  interface EventMap {
    /** An A2A task's push notification config was set (created or replaced). */
    'a2a.push_config.set': JsonObject;
    /** An A2A task's push notification config was deleted. */
    'a2a.push_config.deleted': JsonObject;
  }
}

const SET = 'a2a.push_config.set';
const DELETED = 'a2a.push_config.deleted';
/** Events read per page while rebuilding. */
const PAGE = 1000;

/** The configs, per task id. */
export class PushConfigs {
  readonly #byTask = new Map<string, Map<string, PushConfig>>();

  constructor(private readonly log: EventLog) {}

  /** Rebuilds from the log (bounded pages; the log is finite). */
  async load(options: SignalOptions = {}): Promise<void> {
    this.#byTask.clear();
    let afterSeq = 0;
    for (;;) {
      const events = await this.log.read({ type: [SET, DELETED], afterSeq, limit: PAGE, ...options });
      for (const event of events) {
        const data = event.data as unknown as PushConfig;
        if (event.type === SET) this.#put(data);
        else this.#byTask.get(data.taskId)?.delete(data.id);
      }
      const last = events.at(-1);
      if (last === undefined || events.length < PAGE) return;
      afterSeq = last.seq;
    }
  }

  #put(config: PushConfig): void {
    let configs = this.#byTask.get(config.taskId);
    if (configs === undefined) {
      configs = new Map();
      this.#byTask.set(config.taskId, configs);
    }
    configs.set(config.id, config);
  }

  /** Stores `config` (replacing one with its id). */
  async set(config: PushConfig, options: SignalOptions = {}): Promise<void> {
    await this.log.append(
      {
        type: SET,
        data: config as unknown as JsonObject,
        causation: config.taskId,
        ...(config.tenant === undefined ? {} : { tenant: config.tenant }),
      },
      options,
    );
    this.#put(config);
  }

  /** The configs of task `taskId`. */
  of(taskId: string): readonly PushConfig[] {
    return [...(this.#byTask.get(taskId)?.values() ?? [])];
  }

  /** Deletes one; false when there was none. */
  async delete(config: PushConfig, options: SignalOptions = {}): Promise<boolean> {
    if (this.#byTask.get(config.taskId)?.has(config.id) !== true) return false;
    await this.log.append(
      {
        type: DELETED,
        data: { taskId: config.taskId, id: config.id },
        causation: config.taskId,
        ...(config.tenant === undefined ? {} : { tenant: config.tenant }),
      },
      options,
    );
    this.#byTask.get(config.taskId)?.delete(config.id);
    return true;
  }

  /** True when some task has a config (the deliverer skips events otherwise). */
  get empty(): boolean {
    for (const configs of this.#byTask.values()) if (configs.size > 0) return false;
    return true;
  }
}
