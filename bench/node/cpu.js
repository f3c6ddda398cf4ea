// CPU time of a process, to show which side of a run was the bottleneck: a server at ~100%
// of a core is saturated; a load generator at ~100% means the figure is the client's ceiling.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/** Clock ticks per second for /proc/<pid>/stat (100 on practically every Linux). */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * User + system CPU seconds consumed so far by process `pid` (Linux /proc), or undefined
 * when it cannot be read (another OS, or the process is gone).
 * @param {number | undefined} pid
 * @returns {number | undefined}
 */
export function cpuSeconds(pid) {
  return statSeconds(pid, pid === undefined ? undefined : `/proc/${pid}/stat`);
}

/**
 * User + system CPU seconds consumed so far by the main thread of process `pid` (its thread
 * whose id is the pid: the event loop), or undefined when it cannot be read.
 * @param {number | undefined} pid
 * @returns {number | undefined}
 */
export function mainThreadCpuSeconds(pid) {
  if (pid === undefined || pid === process.pid) return undefined;
  return statSeconds(pid, `/proc/${pid}/task/${pid}/stat`);
}

/**
 * @param {number | undefined} pid
 * @param {string | undefined} path
 * @returns {number | undefined}
 */
function statSeconds(pid, path) {
  if (pid === undefined) return undefined;
  if (pid === process.pid) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
  try {
    const stat = readFileSync(/** @type {string} */ (path), 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return undefined;
  }
}
