/**
 * Plexus errors in A2A's error form (issue 14 item 3, docs/decisions/a2a.md A2A-8): the SDK's
 * error classes, so its transport handlers serialise them with `google.rpc.ErrorInfo` details;
 * each carries the Plexus code in the ErrorInfo `metadata.plexusCode`.
 *
 * - a missing job (or another tenant's: the same answer) → `TaskNotFoundError` (−32001);
 * - bad input of any kind (`invalid_input`, an unknown verb) → `RequestMalformedError`
 *   (−32602, JSON-RPC's invalid params);
 * - anything else (refusals, budgets, timeouts, outages) → the SDK's base error (−32603) whose
 *   ErrorInfo names the code, since A2A has no codes for them.
 */
import {
  A2AError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { ERROR_TABLE, toPlexusError, type PlexusError } from '../../core/errors.js';

function metadataOf(error: PlexusError): Record<string, string> {
  return { plexusCode: error.code, retryable: String(error.retryable) };
}

/** The A2A error of a failure of a request about task `taskId` (when it names one). */
export function a2aErrorOf(failure: unknown, taskId?: string): A2AError {
  if (failure instanceof A2AError) return failure;
  const error = toPlexusError(failure);
  const options = { message: error.message, metadata: metadataOf(error) };
  if (error.code === 'NOT_FOUND' && taskId !== undefined) {
    return new TaskNotFoundError({ ...options, message: `no task with id ${JSON.stringify(taskId)}` });
  }
  const category = ERROR_TABLE[error.code].category;
  if (category === 'invalid_input' || error.code === 'UNKNOWN_VERB')
    return new RequestMalformedError(options);
  return new A2AError(options);
}

/** `TaskNotFoundError` for `taskId`. */
export function taskNotFound(taskId: string): A2AError {
  return new TaskNotFoundError({
    message: `no task with id ${JSON.stringify(taskId)}`,
    // the same answer as a task that does not exist (a2aErrorOf), so another tenant's task is
    // indistinguishable from none (TCK AUTH-SCOPE-003)
    metadata: { plexusCode: 'NOT_FOUND', retryable: 'false' },
  });
}

/** `TaskNotCancelableError`: the task has finished in `state`. */
export function notCancelable(taskId: string, state: string): A2AError {
  return new TaskNotCancelableError({
    message: `task ${taskId} has finished (${state}) and cannot be cancelled`,
    metadata: { plexusCode: 'CONFLICT', state },
  });
}

/** `UnsupportedOperationError` with a message saying why. */
export function unsupported(message: string): A2AError {
  return new UnsupportedOperationError({ message, metadata: { plexusCode: 'PRECONDITION_FAILED' } });
}
