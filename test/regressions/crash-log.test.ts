// Issue 11 item 12: a handler that throws logs its stack trace on the node's (injected)
// logger, not to the caller; a PlexusError a handler throws on purpose is an answer, not a
// crash, and is not logged. (On the original main, the node logs nothing of a crash.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedIo } from '../../src/cli/io.js';
import { cliLogger } from '../../src/cli/cli-logger.js';
import { PlexusError } from '../../src/core/errors.js';
import { createNode, type Node } from '../../src/node/index.js';
import { InvocationError, agent, createPlexus, verb, type Plexus } from '../../src/sdk/index.js';

interface Entry {
  readonly level: string;
  readonly obj: Record<string, unknown>;
  readonly msg: string | undefined;
}

const entries: Entry[] = [];
const record =
  (level: string) =>
  (obj: object, msg?: string): void => {
    entries.push({ level, obj: obj as Record<string, unknown>, msg });
  };

let dir: string;
let node: Node;
let plexus: Plexus;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plexus-crash-log-'));
  node = createNode({
    dataDir: dir,
    store: 'memory',
    port: 0,
    dev: true,
    primitives: false,
    logger: { info: record('info'), warn: record('warn'), error: record('error') },
  });
  await node.start();
  plexus = createPlexus({ node });
  const any = { type: 'object' } as const;
  await plexus.register(
    agent('fragile', [
      verb('fragile.break', { input: any, output: any }, () => {
        throw new TypeError('a wire came loose');
      }),
      verb('fragile.refuse', { input: any, output: any }, () => {
        throw new PlexusError('NOT_FOUND', 'no such thing');
      }),
    ]),
  );
});

afterAll(async () => {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function failure(verbName: string): Promise<InvocationError> {
  const error = await plexus.invoke(verbName, {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvocationError);
  return error as InvocationError;
}

describe('a handler that throws', () => {
  it('logs an error with its stack on the node logger; the caller gets INTERNAL without it', async () => {
    const error = await failure('fragile.break');
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toContain('crashed: a wire came loose');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(
      'crash-log.test',
    );

    const crashes = entries.filter((e) => e.level === 'error');
    expect(crashes).toHaveLength(1);
    const [crash] = crashes as [Entry];
    expect(crash.msg).toBe('a handler crashed; its caller got INTERNAL');
    expect(crash.obj).toMatchObject({ agent: 'fragile', verb: 'fragile.break', reason: 'a wire came loose' });
    expect(crash.obj['job']).toBe(error.jobId);
    expect(crash.obj['stack']).toMatch(/^TypeError: a wire came loose\n\s+at .*crash-log\.test\.ts:\d+/);

    // the command line's logger prints the stack below the line, indented
    const io = capturedIo();
    cliLogger(io, false).error(crash.obj, crash.msg);
    const lines = io.err().split('\n');
    expect(lines[0]).toMatch(
      /^plexus: error: a handler crashed; its caller got INTERNAL \{"agent":"fragile",/,
    );
    expect(lines[0]).not.toContain('stack');
    expect(lines[1]).toBe('    TypeError: a wire came loose');
    expect(lines[2]).toMatch(/^ {6}at .*crash-log\.test\.ts:\d+/);
  });

  it('is not a crash when it throws a PlexusError on purpose: nothing is logged', async () => {
    const before = entries.filter((e) => e.level !== 'info').length;
    const error = await failure('fragile.refuse');
    expect(error.code).toBe('NOT_FOUND');
    expect(entries.filter((e) => e.level !== 'info')).toHaveLength(before);
  });
});
