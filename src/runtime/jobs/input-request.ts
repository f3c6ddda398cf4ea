/**
 * Asking the caller for input mid-job (A2A `INPUT_REQUIRED`; docs/decisions/runtime.md
 * RT-055). A handler calls `ctx.requestInput(prompt, {schema})`: the answers the caller has
 * already given are replayed in order; past them, the call throws {@link InputRequired}, the
 * engine records `job.input_required` and the job waits — durably: it survives a restart.
 * When the caller answers, the handler runs again from the start with one more answer to
 * replay. So a handler must do before its `requestInput` calls only what it may do twice.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { JobInputRequest } from '../../core/records/job.js';

/** Longest prompt accepted, in characters. */
export const MAX_INPUT_PROMPT_LENGTH = 4096;

/** Options of `ctx.requestInput`. */
export interface RequestInputOptions {
  /** JSON Schema the answer must match; a mismatching answer is refused with `INVALID_PARAMS`. */
  readonly schema?: JsonValue;
}

/**
 * Thrown by `requestInput` past the recorded answers: the job pauses. Not a failure — a
 * handler must let it through (catching it leaves the job to fail with the handler's answer).
 */
export class InputRequired extends Error {
  override readonly name = 'InputRequired';
  constructor(
    readonly request: JobInputRequest,
    readonly index: number,
  ) {
    super(`the job waits for input: ${request.prompt}`);
  }
}

/**
 * The `requestInput` of one handler run over the answers recorded so far.
 * @throws PlexusError `INVALID_PARAMS` for a prompt that is not a string of 1…4096 characters.
 */
export function inputRequester(
  answers: readonly JsonValue[],
): (prompt: string, options?: RequestInputOptions) => Promise<JsonValue> {
  let next = 0;
  return (prompt, options = {}) => {
    if (typeof prompt !== 'string' || prompt.length === 0 || prompt.length > MAX_INPUT_PROMPT_LENGTH) {
      return Promise.reject(
        new PlexusError(
          'INVALID_PARAMS',
          `requestInput needs a prompt of 1 to ${MAX_INPUT_PROMPT_LENGTH} characters`,
        ),
      );
    }
    const index = next++;
    if (index < answers.length) return Promise.resolve(answers[index] ?? null);
    const request: JobInputRequest =
      options.schema === undefined ? { prompt } : { prompt, schema: options.schema };
    return Promise.reject(new InputRequired(request, index));
  };
}
