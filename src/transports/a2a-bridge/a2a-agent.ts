/**
 * An A2A agent as a Plexus agent (issue 14 item 4, docs/decisions/a2a.md A2A-13): its card is
 * fetched (and its signatures checked), each skill becomes a verb `a2a.<name>.<skill>` of a
 * bridge agent the node hosts, and a call of that verb sends one message through the stock
 * `@a2a-js/sdk` client — streaming when the card says so, so the remote task's status updates
 * become job progress; cancelling the job cancels the remote task; the remote task's final state
 * becomes the job's (COMPLETED: its artifacts are the output).
 */
import { randomUUID } from 'node:crypto';
import {
  Role,
  TaskState,
  type AgentCard as SdkAgentCard,
  type Artifact,
  type Part,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import { MAX_VERB_SEGMENT_LENGTH } from '../../core/verb-name.js';
import {
  A2A_BRIDGE_EXTENSION,
  defineAgent,
  targetUrl,
  type AgentDefinition,
  type HandlerContext,
} from '../../runtime/index.js';
import { entryHeaders, type A2aAgentEntry } from './a2a-agent-entry.js';
import { cleanTracestate } from '../../core/tracestate.js';
import type { Observer } from '../../runtime/observer.js';
import {
  messageTraceparent,
  tracedFetch,
  withFirstClientSpan,
  withOutboundTrace,
  type OutboundTrace,
} from '../outbound-trace.js';
import { fetchA2aCard } from './a2a-card-fetch.js';

export type { A2aAgentEntry } from './a2a-agent-entry.js';

/** How long a cancelled call waits for the remote task's CANCELED status before it stops listening, ms. */
const CANCEL_GRACE_MS = 10_000;

/** `text` as one verb segment (`[a-z][a-z0-9_]*`, at most 64 characters). */
export function verbSegment(text: string): string {
  const lower = text
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const segment = /^[a-z]/.test(lower) ? lower : `s_${lower}`;
  return segment.slice(0, MAX_VERB_SEGMENT_LENGTH);
}

function parts(input: JsonValue): Part[] {
  const text =
    typeof input === 'string'
      ? input
      : isJsonObject(input) && Object.keys(input).length === 1 && typeof input['text'] === 'string'
        ? input['text']
        : undefined;
  return [
    text === undefined
      ? { content: { $case: 'data', value: input }, metadata: undefined, filename: '', mediaType: '' }
      : { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' },
  ];
}

/** The output of a finished remote task: one artifact's one part as itself, else every part. */
function outputOf(artifacts: readonly Artifact[]): JsonValue {
  const values = artifacts.flatMap((a) =>
    a.parts.map((p): JsonValue => {
      const c = p.content;
      if (c === undefined) return null;
      if (c.$case === 'raw') return { raw: Buffer.from(c.value).toString('base64'), mediaType: p.mediaType };
      if (c.$case === 'url') return { url: c.value, mediaType: p.mediaType };
      return c.value as JsonValue;
    }),
  );
  return values.length === 1 ? (values[0] ?? null) : { parts: values };
}

function statusText(task: Task): string {
  const c = task.status?.message?.parts[0]?.content;
  return c?.$case === 'text'
    ? c.value
    : `the A2A agent ended the task as ${TaskState[task.status?.state ?? 0]}`;
}

/** The job's outcome for a remote task that ended. @throws PlexusError for every state but COMPLETED. */
function finish(task: Task, artifacts: readonly Artifact[], name: string): JsonValue {
  switch (task.status?.state) {
    case TaskState.TASK_STATE_COMPLETED:
      return outputOf(artifacts.length > 0 ? artifacts : task.artifacts);
    case TaskState.TASK_STATE_CANCELED:
      throw new PlexusError('CANCELLED', `the A2A agent ${name} cancelled the task`);
    case TaskState.TASK_STATE_REJECTED:
      throw new PlexusError('FORBIDDEN', `the A2A agent ${name} rejected the task: ${statusText(task)}`);
    case TaskState.TASK_STATE_INPUT_REQUIRED:
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      throw new PlexusError(
        'PRECONDITION_FAILED',
        `the A2A agent ${name} asks for more input (${TaskState[task.status.state]}), which the bridge cannot give yet`,
      );
    default:
      throw new PlexusError('UNAVAILABLE', `the A2A agent ${name} failed the task: ${statusText(task)}`);
  }
}

/** The trace a job's calls continue: its handler's span and the request's tracestate (OBS-45). */
function traceOfJob(ctx: HandlerContext): OutboundTrace {
  if (ctx.traceparent === undefined) return {};
  const tracestate = cleanTracestate(ctx.envelope.tracestate);
  return { traceparent: ctx.traceparent, ...(tracestate === undefined ? {} : { tracestate }) };
}

/** The W3C trace context a message sent in `trace` carries in its metadata (OBS-15, OBS-45, OBS-58). */
function metadataOf(trace: OutboundTrace): { traceparent?: string; tracestate?: string } {
  const traceparent = messageTraceparent(trace);
  if (traceparent === undefined) return {};
  return { traceparent, ...(trace.tracestate === undefined ? {} : { tracestate: trace.tracestate }) };
}

async function callSkill(
  client: Client,
  streaming: boolean,
  entry: A2aAgentEntry,
  skill: string,
  input: JsonValue,
  ctx: HandlerContext,
  trace: OutboundTrace,
): Promise<JsonValue> {
  const request = {
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: parts(input),
      // OBS-15, OBS-45: the agent continues this job's trace (W3C trace context in the message
      // metadata), under the CLIENT span of the request that carries it, as the header says (OBS-58)
      metadata: { skill, ...metadataOf(trace) },
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
  if (!streaming) {
    const answer = await client.sendMessage(request, { signal: ctx.signal });
    if ('messageId' in answer)
      return outputOf([
        {
          artifactId: '',
          name: '',
          description: '',
          parts: answer.parts,
          metadata: undefined,
          extensions: [],
        },
      ]);
    return finish(answer, answer.artifacts, entry.name);
  }
  let task: Task | undefined;
  const asked = { cancel: false };
  const artifacts: Artifact[] = [];
  // The stream is not cut when the job is cancelled: the remote task is cancelled instead, and
  // the stream ends with its CANCELED status (or, at the latest, CANCEL_GRACE_MS later).
  const stream = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  const cancelRemote = (id: string): void => {
    client.cancelTask({ tenant: '', id, metadata: undefined }).catch(() => undefined);
    grace = setTimeout(() => {
      stream.abort();
    }, CANCEL_GRACE_MS);
    grace.unref();
  };
  const cancel = (): void => {
    asked.cancel = true;
    if (task !== undefined) cancelRemote(task.id);
  };
  ctx.signal.addEventListener('abort', cancel, { once: true });
  try {
    for await (const event of client.sendMessageStream(request, {
      signal: stream.signal,
    }) as AsyncGenerator<StreamResponse>) {
      const payload = event.payload;
      if (payload === undefined) continue;
      if (payload.$case === 'message') {
        return outputOf([
          {
            artifactId: '',
            name: '',
            description: '',
            parts: payload.value.parts,
            metadata: undefined,
            extensions: [],
          },
        ]);
      }
      if (payload.$case === 'task') {
        const first = task === undefined;
        task = payload.value;
        if (first && asked.cancel) cancelRemote(task.id);
      } else if (payload.$case === 'artifactUpdate' && payload.value.artifact !== undefined) {
        artifacts.push(payload.value.artifact);
      } else if (payload.$case === 'statusUpdate' && task !== undefined) {
        task = { ...task, status: payload.value.status };
        ctx.progress({ state: TaskState[payload.value.status?.state ?? 0] ?? 'unknown' });
      }
    }
  } finally {
    ctx.signal.removeEventListener('abort', cancel);
    if (grace !== undefined) clearTimeout(grace);
  }
  if (asked.cancel)
    throw new PlexusError(
      'CANCELLED',
      `the job was cancelled; the A2A agent ${entry.name} was asked to cancel its task`,
    );
  if (task === undefined) throw new PlexusError('UNAVAILABLE', `the A2A agent ${entry.name} sent no task`);
  return finish(task, artifacts, entry.name);
}

/** How a bridged agent's calls learn that the agent is gone (its card vanished). */
export interface BridgeOptions {
  /** `undefined` while the agent answers, else the error every call of its verbs fails with. */
  readonly gone?: () => PlexusError | undefined;
  /** An agent a caller chose (A2A-19): its client follows no redirect. */
  readonly noRedirects?: boolean;
  /** The node's tracer: each HTTP request to the agent is a CLIENT span (OBS-48). @default none */
  readonly tracing?: Observer;
}

/**
 * The bridge agent of `entry`: fetches its card and builds the agent definition.
 * @throws PlexusError `UNAVAILABLE` when the card cannot be fetched or read; `FORBIDDEN` when its
 *   signature does not verify and the entry does not say `unsigned: allow`.
 */
export async function a2aBridgeAgent(entry: A2aAgentEntry, signal?: AbortSignal): Promise<AgentDefinition> {
  const answer = await fetchA2aCard(entry, signal === undefined ? {} : { signal });
  if (!answer.changed)
    throw new PlexusError('UNAVAILABLE', `the card of A2A agent ${entry.name} was not sent`);
  return defineA2aBridgeAgent(entry, answer.fetched.card);
}

/**
 * The agent definition of `entry` with its agent's `card`: a verb per skill, each call one
 * message through the stock SDK client. Its card carries {@link A2A_BRIDGE_EXTENSION} (the
 * agent's URL and each skill's verb) for `a2a+https://` targets.
 */
export async function defineA2aBridgeAgent(
  entry: A2aAgentEntry,
  card: SdkAgentCard,
  options: BridgeOptions = {},
): Promise<AgentDefinition> {
  const base = entry.url.replace(/\/+$/, '');
  const headers = entryHeaders(entry);
  // OBS-48: each request carries the calling job's trace (traceparent / tracestate headers)
  const traced = tracedFetch(fetch, options.tracing);
  const fetchImpl: typeof fetch = (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [k, v] of Object.entries(headers)) merged.set(k, v);
    return traced(input, {
      ...init,
      headers: merged,
      ...(options.noRedirects === true ? { redirect: 'error' as const } : {}),
    });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- the SDK does not export the options classes
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    }),
  );
  const client = await factory.createFromAgentCard(card);
  const streaming = card.capabilities?.streaming === true;
  const used = new Set<string>();
  const skills = card.skills.map((skill) => {
    let segment = verbSegment(skill.id === '' ? skill.name : skill.id);
    for (let n = 2; used.has(segment); n++) segment = `${segment.slice(0, MAX_VERB_SEGMENT_LENGTH - 4)}_${n}`;
    used.add(segment);
    return { skill, verb: `a2a.${verbSegment(entry.name)}.${segment}` };
  });
  const call = (skill: string, input: JsonValue, ctx: HandlerContext): Promise<JsonValue> => {
    const gone = options.gone?.();
    if (gone !== undefined) return Promise.reject(gone);
    const trace = withFirstClientSpan(traceOfJob(ctx), options.tracing);
    return withOutboundTrace(trace, () => callSkill(client, streaming, entry, skill, input, ctx, trace));
  };
  return defineAgent({
    card: {
      id: entry.name,
      name: card.name === '' ? entry.name : card.name,
      version: /^\d+\.\d+\.\d+/.test(card.version) ? card.version : '1.0.0',
      tier: 'L3',
      description: `A2A agent at ${base}: ${card.description}`,
      capabilities: skills.map(({ skill, verb }) => ({
        verb,
        description: skill.description === '' ? skill.name : skill.description,
        input: true,
        output: true,
      })),
      extensions: {
        [A2A_BRIDGE_EXTENSION]: {
          url: targetUrl(new URL(base)),
          skills: Object.fromEntries(
            skills.map(({ skill, verb }) => [skill.id === '' ? skill.name : skill.id, verb]),
          ),
        },
      },
    },
    create: () =>
      Object.fromEntries(
        skills.map(({ skill, verb }) => [
          verb,
          (input: JsonValue, ctx: HandlerContext) => call(skill.id, input, ctx),
        ]),
      ),
  });
}
