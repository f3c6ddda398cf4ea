/**
 * An embedder that calls any OpenAI-compatible embeddings endpoint (OpenAI, Azure-style
 * gateways, Ollama, llama.cpp server, vLLM, LM Studio, text-embeddings-inference…):
 * `POST {baseUrl}/embeddings` with `{model, input: [texts], dimensions?}` and a bearer key,
 * answered by `{data: [{index, embedding}]}` (`embedding` a float array or base64 float32).
 *
 * Remote vectors are not reproducible offline, so the memory primitive stores them in its
 * events (`deterministic: false`) and replay never calls the endpoint.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { Embedder } from './embedder.js';
import { decodeVector } from './vector-math.js';

/** Options of {@link openAiEmbedder}. */
export interface OpenAiEmbedderInit {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string;
  /** The model name sent as `model`. */
  readonly model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  readonly apiKey?: string;
  /** Requested vector length (sent as `dimensions`; answers of another length are refused). */
  readonly dimensions?: number;
  /** Per-request timeout in ms. @default 30000 */
  readonly timeoutMs?: number;
  /** Texts sent per request. @default 64 */
  readonly batchSize?: number;
}

const excerpt = (text: string): string => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/**
 * Creates the adapter.
 *
 * @throws PlexusError `INVALID_PARAMS` for a base URL that is not http(s), an empty model, or
 *   bad numbers. The embedder's `embed` throws `UNAVAILABLE` (unreachable, HTTP error, bad
 *   answer; retryable on 408/429/5xx and network faults), `TIMEOUT`, or `CANCELLED`.
 */
export function openAiEmbedder(init: OpenAiEmbedderInit): Embedder {
  let url: URL;
  try {
    url = new URL(`${init.baseUrl.replace(/\/+$/, '')}/embeddings`);
  } catch (cause) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `embeddings baseUrl ${JSON.stringify(init.baseUrl)} is not a URL`,
      {
        cause,
      },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PlexusError('INVALID_PARAMS', `embeddings baseUrl must be http(s), got ${url.protocol}`);
  }
  if (typeof init.model !== 'string' || init.model.length === 0) {
    throw new PlexusError('INVALID_PARAMS', 'embeddings model must be a non-empty string');
  }
  const timeoutMs = init.timeoutMs ?? 30_000;
  const batchSize = init.batchSize ?? 64;
  for (const [name, value] of [
    ['timeoutMs', timeoutMs],
    ['batchSize', batchSize],
    ['dimensions', init.dimensions ?? 1],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new PlexusError('INVALID_PARAMS', `embeddings ${name} must be a positive integer, got ${value}`);
    }
  }
  const endpoint = url.toString();
  let dimensions = init.dimensions;

  const fail = (message: string, status: number | null, retryable: boolean, cause?: unknown): PlexusError =>
    new PlexusError('UNAVAILABLE', `embeddings endpoint ${endpoint}: ${message}`, {
      retryable,
      details: { endpoint, status, model: init.model },
      ...(cause === undefined ? {} : { cause }),
    });

  const parse = (body: unknown, count: number): Float32Array[] => {
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== count) {
      throw fail(
        `expected "data" with ${count} embeddings, got ${Array.isArray(data) ? data.length : typeof data}`,
        200,
        false,
      );
    }
    const out = new Array<Float32Array | undefined>(count);
    data.forEach((item: unknown, position) => {
      const entry = item as { index?: unknown; embedding?: unknown } | null;
      const index = typeof entry?.index === 'number' ? entry.index : position;
      if (!Number.isInteger(index) || index < 0 || index >= count || out[index] !== undefined) {
        throw fail(`embedding ${position} has a bad or repeated index ${String(entry?.index)}`, 200, false);
      }
      const e = entry?.embedding;
      let v: Float32Array;
      if (typeof e === 'string') {
        try {
          v = decodeVector(e);
        } catch (cause) {
          throw fail(
            `embedding ${index} is not base64 float32 (${toPlexusError(cause).message})`,
            200,
            false,
            cause,
          );
        }
      } else if (Array.isArray(e) && e.every((x) => typeof x === 'number' && Number.isFinite(x)))
        v = Float32Array.from(e as number[]);
      else throw fail(`embedding ${index} is not an array of finite numbers`, 200, false);
      if (v.length === 0) throw fail(`embedding ${index} is empty`, 200, false);
      if (dimensions !== undefined && v.length !== dimensions) {
        throw fail(`embedding ${index} has ${v.length} dimensions, expected ${dimensions}`, 200, false);
      }
      dimensions ??= v.length;
      out[index] = v;
    });
    return out as Float32Array[];
  };

  const request = async (
    texts: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<Float32Array[]> => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    let response: Response;
    let text: string;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(init.apiKey === undefined ? {} : { authorization: `Bearer ${init.apiKey}` }),
        },
        body: JSON.stringify({
          model: init.model,
          input: texts,
          ...(init.dimensions === undefined ? {} : { dimensions: init.dimensions }),
        }),
        signal: combined,
      });
      text = await response.text();
    } catch (cause) {
      if (signal?.aborted === true) throw new PlexusError('CANCELLED', 'embedding was cancelled', { cause });
      if (timeout.aborted) {
        throw new PlexusError(
          'TIMEOUT',
          `embeddings endpoint ${endpoint} did not answer within ${timeoutMs} ms`,
          {
            cause,
            details: { endpoint, timeoutMs },
          },
        );
      }
      throw fail(`unreachable (${toPlexusError(cause).message})`, null, true, cause);
    }
    if (!response.ok) {
      let reason = excerpt(text);
      try {
        const err = (JSON.parse(text) as { error?: { message?: unknown } | string }).error;
        const message = typeof err === 'string' ? err : err?.message;
        if (typeof message === 'string') reason = excerpt(message);
      } catch {
        // not JSON: keep the text excerpt
      }
      const status = response.status;
      const hint =
        status === 401 || status === 403
          ? ' (check apiKey)'
          : status === 404
            ? ' (check baseUrl and model)'
            : '';
      throw fail(
        `HTTP ${status}${hint}: ${reason}`,
        status,
        status === 408 || status === 429 || status >= 500,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (cause) {
      throw fail(`answer is not JSON: ${excerpt(text)}`, response.status, false, cause);
    }
    return parse(body, texts.length);
  };

  return {
    id: `openai-compatible:${init.model}${init.dimensions === undefined ? '' : `/${init.dimensions}`}`,
    get dimensions() {
      return dimensions;
    },
    deterministic: false,
    async embed(texts, options = {}) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        out.push(...(await request(texts.slice(i, i + batchSize), options.signal)));
      }
      return out;
    },
  };
}
