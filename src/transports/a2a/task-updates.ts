/**
 * What one job event means to an A2A client following the task (docs/decisions/a2a.md A2A-7):
 * the stream updates of SendStreamingMessage and SubscribeToTask, and the bodies of push
 * notifications (A2A-12). A start becomes a WORKING status update; progress a WORKING status
 * update whose message holds the progress data (metadata `progress: true`); a wait for input an
 * INPUT_REQUIRED status update whose message is the question (A2A-14), an answer a WORKING one;
 * the final event the job's artifacts, then its final status.
 */
import type { StreamResponse } from '@a2a-js/sdk';
import { isJsonObject } from '../../core/json.js';
import type { Job, JobState } from '../../core/records/job.js';
import type { Runtime } from '../../runtime/index.js';
import type { JobEvent } from '../../runtime/jobs/job-events.js';
import { agentMessage, artifactsOf, contextIdOf, part, statusOf } from './task-of-job.js';

/** The job state a job event moves to (progress: WORKING), `undefined` for other events. */
export function jobStateOfEvent(event: JobEvent): JobState | undefined {
  switch (event.type) {
    case 'job.submitted':
      return 'SUBMITTED';
    case 'job.started':
    case 'job.retried':
    case 'job.progress':
    case 'job.input_provided':
      return 'WORKING';
    case 'job.input_required':
      return 'INPUT_REQUIRED';
    case 'job.completed':
      return 'COMPLETED';
    case 'job.failed':
      return 'FAILED';
    case 'job.canceled':
      return 'CANCELED';
    case 'job.rejected':
      return 'REJECTED';
    default:
      return undefined;
  }
}

function statusUpdate(job: Job, state: JobState, message?: ReturnType<typeof agentMessage>): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: {
        taskId: job.id,
        contextId: contextIdOf(job),
        status: { ...statusOf(job, state), ...(message === undefined ? {} : { message }) },
        metadata: undefined,
      },
    },
  };
}

/**
 * The updates `event` makes for a client that has seen the task in `state`, the job as now known
 * (read again after the final event, for its outputs) and the state after it.
 */
export async function taskUpdates(
  runtime: Runtime,
  job: Job,
  event: JobEvent,
  state: JobState,
  signal?: AbortSignal,
): Promise<{ updates: StreamResponse[]; job: Job; state: JobState }> {
  const next = jobStateOfEvent(event);
  if (event.type === 'job.progress') {
    const progress = isJsonObject(event.data) ? event.data['progress'] : undefined;
    const note = agentMessage(
      job.id,
      contextIdOf(job),
      [part({ $case: 'data', value: progress ?? null })],
      `progress:${event.seq}`,
      { progress: true },
    );
    return { updates: [statusUpdate(job, 'WORKING', note)], job, state: 'WORKING' };
  }
  if (event.type === 'job.input_required' && isJsonObject(event.data)) {
    // the question is the event's (the job as known here may be older): A2A-14
    const { prompt, schema } = event.data;
    const asked: Job = {
      ...job,
      // the time of the question, as the jobs projection records it (so its message id too)
      timing: { ...job.timing, updatedAt: event.time, statusAt: event.time },
      state: 'INPUT_REQUIRED',
      input: {
        prompt: typeof prompt === 'string' ? prompt : '',
        ...(schema === undefined ? {} : { schema }),
      },
    };
    return { updates: [statusUpdate(asked, 'INPUT_REQUIRED')], job: asked, state: 'INPUT_REQUIRED' };
  }
  if (next !== undefined && event.terminal) {
    const done = await runtime.jobs.get(job.id, signal === undefined ? {} : { signal });
    const artifacts: StreamResponse[] = artifactsOf(done).map((artifact) => ({
      payload: {
        $case: 'artifactUpdate',
        value: {
          taskId: job.id,
          contextId: contextIdOf(job),
          artifact,
          append: false,
          lastChunk: true,
          metadata: undefined,
        },
      },
    }));
    return { updates: [...artifacts, statusUpdate(done, done.state)], job: done, state: done.state };
  }
  if (next !== undefined && next !== state) return { updates: [statusUpdate(job, next)], job, state: next };
  return { updates: [], job, state: next ?? state };
}
