// Types for baselines.js (see there).
import type { Subject } from './load.js';

/** The payload every face echoes, different for every request index. */
export function payload(i: number): { text: string; n: number };

/** Row names of the MCP SDK subjects. */
export const MCP_NAMES: string[];

/** The baseline subjects: node:http, ws, the MCP SDK modes, the A2A SDK. */
export const subjects: Subject[];
