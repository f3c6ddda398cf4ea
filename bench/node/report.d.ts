// Types for report.js, so TypeScript tests can check the report (see the JSDoc in report.js).
import type { LoadResult } from './load.js';

/** A throughput ratio the issue sets. */
export interface Target {
  subject: string;
  baseline: string | string[];
  min: number;
  label: string;
  /** The bare server over the same transport and load client. */
  transport?: string;
  /** The baseline is another server driven by the same stock client: compare CPU per call too. */
  capacity?: boolean;
}

/** A subject's figures: medians over rounds, and the range of req/s. */
export type Row = LoadResult & { rounds: number; rpsMin: number; rpsMax: number };

export function ceiling(row: Row, cores: number): number | undefined;
export function table(rows: Row[], failures?: Map<string, string>, cores?: number): string;
export function ratioLines(rows: Row[], targets: Target[]): string[];
export function budgetLines(
  rows: Row[],
  targets: Target[],
  cores: number,
  log?: { usPerCall: number; eventsPerCall: number; mergedUsPerCall?: number },
): string[];
export function capacityLines(rows: Row[], targets: Target[]): string[];
