/**
 * Deprecation warnings in the SDK (seed 002 §10.3): a call to a deprecated era still answers,
 * and its warnings reach the caller through `InvokeOptions.onWarning` — in-process from the
 * runtime's answer, remotely from the ESRP response (output `metadata.warnings`, or
 * `error.details.warnings` on a failure).
 */
import { isJsonObject } from '../core/json.js';
import { isEraWarning, type EraWarning } from '../runtime/pipeline/era.js';

export type { EraWarning } from '../runtime/pipeline/era.js';

/** Something that may want warnings: the `onWarning` member of the call's options. */
export interface WarningSink {
  readonly onWarning?: (warning: EraWarning) => void;
}

function collect(list: unknown, into: Map<string, EraWarning>): void {
  if (!Array.isArray(list)) return;
  for (const item of list) if (isEraWarning(item) && !into.has(item.verb)) into.set(item.verb, item);
}

/** The deprecation warnings of an ESRP response body (one per era, in order). */
export function esrpWarningsOf(body: unknown): EraWarning[] {
  if (!isJsonObject(body)) return [];
  const found = new Map<string, EraWarning>();
  const outputs = body['outputs'];
  if (Array.isArray(outputs)) {
    for (const output of outputs) {
      if (isJsonObject(output) && isJsonObject(output['metadata']))
        collect(output['metadata']['warnings'], found);
    }
  }
  const error = body['error'];
  if (isJsonObject(error) && isJsonObject(error['details'])) collect(error['details']['warnings'], found);
  return [...found.values()];
}

/** Hands each warning to `sink.onWarning` (nothing when it has none); a throwing sink is ignored. */
export function reportWarnings(sink: WarningSink, warnings: readonly EraWarning[] | undefined): void {
  if (sink.onWarning === undefined || warnings === undefined) return;
  for (const warning of warnings) {
    try {
      sink.onWarning(warning);
    } catch {
      // a listener's bug must not turn a successful call into a failure
    }
  }
}
