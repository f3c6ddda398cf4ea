/**
 * A `package-lock.json` for an empty project that depends on a packed Plexus tarball, pinned
 * to the versions of this repository's own lockfile: the tarball as the one dependency, and
 * every non-dev package of the repository at the place and version CI tests it with.
 *
 * With it, `npm ci --offline` installs from the npm cache alone (the tarballs `npm ci` of the
 * repository left there, found by their integrity) without resolving any version range —
 * which would need registry metadata the cache may not hold (docs/decisions/packaging.md).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockEntry {
  readonly dev?: boolean;
  readonly [key: string]: unknown;
}

/** The project's identity: its package.json `name` and `version`. */
export interface ProjectManifest {
  readonly name: string;
  readonly version: string;
}

/** The lockfile of `project` depending on `tarball` (an absolute path), from `root`'s lockfile. */
export function installLockfile(root: string, tarball: string, project: ProjectManifest): object {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const packages: Record<string, unknown> = {
    '': { name: project.name, version: project.version, dependencies: { plexus: `file:${tarball}` } },
    'node_modules/plexus': {
      version: pkg['version'],
      resolved: `file:${tarball}`,
      integrity,
      license: pkg['license'],
      dependencies: pkg['dependencies'],
      bin: pkg['bin'],
      engines: pkg['engines'],
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path !== '' && entry.dev !== true) packages[path] = entry;
  }
  return { name: project.name, version: project.version, lockfileVersion: 3, requires: true, packages };
}
