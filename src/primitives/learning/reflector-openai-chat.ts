/**
 * A reflector backed by any OpenAI-compatible chat endpoint (`POST {baseUrl}/chat/completions`:
 * OpenAI, Azure-style gateways, vLLM, llama.cpp server, Ollama's `/v1`, LM Studio, …). It
 * sends the playbook and the execution, asks for one JSON object
 * `{"newBullets":[{"section","content"}],"prune":[ids]}`, and checks the answer before the
 * learning primitive writes it into the log.
 *
 * Errors (all `PlexusError`, `details.endpoint` set):
 * - cannot connect → `PEER_UNAVAILABLE` (retryable), `details.reason: "unreachable"`;
 * - no answer within `timeoutMs` → `TIMEOUT`;
 * - HTTP 429 / 5xx → `PEER_UNAVAILABLE` (retryable); other HTTP errors (401, 403, 404, 400) →
 *   `PEER_UNAVAILABLE` (not retryable), with `details.status` and the endpoint's error message;
 * - an answer that is not a chat completion, or whose content is not the JSON asked for →
 *   `PEER_UNAVAILABLE` (not retryable), `details.reason: "bad_response"`;
 * - the caller's signal aborts → `CANCELLED`.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import {
  checkProposal,
  type ReflectionProposal,
  type ReflectionRequest,
  type Reflector,
} from './reflector.js';

/** Options of {@link openAiChatReflector}. */
export interface OpenAiChatReflectorInit {
  /** The API base, up to and including the version segment (`https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`). */
  readonly baseUrl: string;
  /** The model name sent in the request (`gpt-4o-mini`, `llama-3.1-8b-instruct`). */
  readonly model: string;
  /** Sent as `Authorization: Bearer <apiKey>`; refused over plain HTTP to a non-loopback host. */
  readonly apiKey?: string;
  /** Give up after this many ms. @default 30000 */
  readonly timeoutMs?: number;
  /** Sampling temperature. @default 0 */
  readonly temperature?: number;
  /** Send `response_format: {type: "json_object"}` (turn off for servers that reject it). @default true */
  readonly jsonMode?: boolean;
  /** Longest execution JSON sent, in characters (longer is cut). @default 16000 */
  readonly maxExecutionChars?: number;
  /** Most playbook bullets sent (the newest). @default 200 */
  readonly maxBullets?: number;
  /** Largest answer body read, bytes. @default 1048576 */
  readonly maxResponseBytes?: number;
  /** The fetch implementation. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** The system prompt sent with every reflection. */
export const REFLECTOR_SYSTEM_PROMPT = [
  'You are the Reflector and Curator of an agent playbook (Agentic Context Engineering).',
  'A playbook holds short, concrete bullets in four sections:',
  '"str" strategies that worked, "cal" calculations such as time or cost budgets,',
  '"mis" mistakes to avoid, "fbk" feedback from outcomes.',
  'Given one finished execution (its steps, durations, outcome and reward) and the current bullets,',
  'propose at most 5 new bullets that would help the next run of a similar task, and list the ids of',
  'existing bullets this execution shows to be wrong or harmful.',
  'Each bullet must be specific (name the tools, steps, numbers), actionable, at most 300 characters,',
  'and must not repeat an existing bullet. Never copy personal data from the execution.',
  'Answer with exactly one JSON object and nothing else:',
  '{"newBullets":[{"section":"str|cal|mis|fbk","content":"..."}],"prune":["<existing bullet id>"]}',
].join('\n');

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

function checkInit(init: OpenAiChatReflectorInit): URL {
  const bad = (field: string, why: string): PlexusError =>
    new PlexusError('INVALID_PARAMS', `openAiChatReflector: ${field} ${why}`, { details: { field } });
  let url: URL;
  try {
    url = new URL(init.baseUrl);
  } catch {
    throw bad('baseUrl', `${JSON.stringify(init.baseUrl)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad('baseUrl', 'must be an http(s) URL');
  if (typeof init.model !== 'string' || init.model.trim() === '')
    throw bad('model', 'must be a non-empty string');
  if (init.apiKey !== undefined && url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) {
    throw bad('apiKey', 'would travel in clear text: use an https baseUrl for a non-loopback host');
  }
  const timeout = init.timeoutMs ?? 30_000;
  if (!Number.isInteger(timeout) || timeout <= 0) throw bad('timeoutMs', 'must be a positive integer');
  return url;
}

/** The user message: the playbook's bullets and the execution. */
export function reflectionPrompt(
  request: ReflectionRequest,
  maxExecutionChars = 16_000,
  maxBullets = 200,
): string {
  const bullets = request.bullets.slice(-maxBullets);
  const lines = bullets.map(
    (b) => `[${b.id}] (helpful ${b.helpfulCount}, harmful ${b.harmfulCount}) ${b.content}`,
  );
  let execution = JSON.stringify(request.execution);
  if (execution.length > maxExecutionChars) execution = `${execution.slice(0, maxExecutionChars)}… (cut)`;
  return [
    `Playbook "${request.playbookId}" (${request.bullets.length} bullets${bullets.length < request.bullets.length ? `, newest ${bullets.length} shown` : ''}):`,
    lines.length === 0 ? '(empty)' : lines.join('\n'),
    '',
    'Execution:',
    execution,
  ].join('\n');
}

/** The JSON object inside a model's text (code fences and surrounding prose are tolerated). */
export function extractJsonObject(text: string): JsonValue {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('the answer holds no JSON object');
  return JSON.parse(text.slice(start, end + 1)) as JsonValue;
}

async function readLimited(response: Response, limit: number): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`the answer is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function endpointMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as JsonValue;
    if (isJsonObject(parsed)) {
      const error = parsed['error'];
      if (isJsonObject(error) && typeof error['message'] === 'string') return error['message'];
      if (typeof error === 'string') return error;
      if (typeof parsed['message'] === 'string') return parsed['message'];
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/**
 * A reflector that asks an OpenAI-compatible chat endpoint.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad `baseUrl`, `model`, `timeoutMs`, or an
 *   `apiKey` that would be sent over plain HTTP to a non-loopback host.
 * @example
 * openAiChatReflector({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey })
 */
export function openAiChatReflector(init: OpenAiChatReflectorInit): Reflector {
  const base = checkInit(init);
  const endpoint = `${base.href.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = init.timeoutMs ?? 30_000;
  const maxBytes = init.maxResponseBytes ?? 1_048_576;
  const doFetch = init.fetch ?? globalThis.fetch;
  const name = `openai-chat:${init.model}`;
  const fail = (message: string, details: Record<string, JsonValue>, retryable: boolean, cause?: unknown) =>
    new PlexusError('PEER_UNAVAILABLE', `reflector ${name} at ${endpoint}: ${message}`, {
      retryable,
      details: { endpoint, ...details },
      ...(cause === undefined ? {} : { cause }),
    });

  async function call(
    request: ReflectionRequest,
    signal: AbortSignal | undefined,
  ): Promise<ReflectionProposal> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = (): void => {
      controller.abort();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const interrupted = (cause: unknown): PlexusError | undefined => {
      if (timedOut) {
        return new PlexusError(
          'TIMEOUT',
          `reflector ${name} at ${endpoint}: no answer within ${timeoutMs} ms`,
          {
            details: { endpoint, timeoutMs },
            cause,
          },
        );
      }
      if (signal?.aborted === true) {
        return new PlexusError('CANCELLED', `reflector ${name}: the reflection was cancelled`, { cause });
      }
      return undefined;
    };
    try {
      if (signal?.aborted === true)
        throw new PlexusError('CANCELLED', `reflector ${name}: the reflection was cancelled`);
      const body: Record<string, JsonValue> = {
        model: init.model,
        temperature: init.temperature ?? 0,
        messages: [
          { role: 'system', content: REFLECTOR_SYSTEM_PROMPT },
          { role: 'user', content: reflectionPrompt(request, init.maxExecutionChars, init.maxBullets) },
        ],
      };
      if (init.jsonMode !== false) body['response_format'] = { type: 'json_object' };
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json',
      };
      if (init.apiKey !== undefined) headers['authorization'] = `Bearer ${init.apiKey}`;
      let response: Response;
      try {
        response = await doFetch(endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: controller.signal,
        });
      } catch (cause) {
        throw (
          interrupted(cause) ??
          fail(`cannot connect (${toPlexusError(cause).message})`, { reason: 'unreachable' }, true, cause)
        );
      }
      let text: string;
      try {
        text = await readLimited(response, maxBytes);
      } catch (cause) {
        throw (
          interrupted(cause) ??
          fail(
            `reading the answer failed: ${toPlexusError(cause).message}`,
            { reason: 'bad_response', status: response.status },
            false,
            cause,
          )
        );
      }
      if (!response.ok) {
        const status = response.status;
        const retryable = status === 429 || status >= 500;
        const hint =
          status === 401 || status === 403
            ? ' (check apiKey)'
            : status === 404
              ? ' (check baseUrl, which should end with the API version such as /v1, and model)'
              : '';
        throw fail(
          `HTTP ${status}${hint}: ${endpointMessage(text)}`,
          { status, reason: 'http_error' },
          retryable,
        );
      }
      let content: unknown;
      try {
        const parsed = JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] };
        content = parsed.choices?.[0]?.message?.content;
      } catch (cause) {
        throw fail(
          'the answer is not JSON',
          { reason: 'bad_response', status: response.status },
          false,
          cause,
        );
      }
      if (typeof content !== 'string') {
        throw fail('the answer has no choices[0].message.content text', { reason: 'bad_response' }, false);
      }
      let proposal: JsonValue;
      try {
        proposal = extractJsonObject(content);
      } catch (cause) {
        throw fail(
          `the model's reply is not the JSON object asked for: ${toPlexusError(cause).message}`,
          { reason: 'bad_response' },
          false,
          cause,
        );
      }
      try {
        return checkProposal(proposal, name);
      } catch (cause) {
        throw fail(toPlexusError(cause).message, { reason: 'bad_response' }, false, cause);
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    name,
    reflect: (request, options = {}) => call(request, options.signal),
  };
}
