/**
 * The dashboard's static assets (issue 16 item 4, docs/observability.md "Dashboard"): plain ES
 * modules, CSS and one HTML page written by hand in the package's `ui/` folder (shipped by
 * package.json `files`; no build step, no CDN, nothing fetched at run time — OBS-41). They are
 * read once, when the face registers, into memory; only the flat file names found there are
 * served, so no request path ever reaches the file system.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One asset, ready to send. */
export interface UiAsset {
  readonly contentType: string;
  readonly body: Buffer;
}

/** The content types of the files the dashboard is made of. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The names served: flat, lower case, one of the known extensions. */
const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg)$/;

/**
 * The `ui/` folder of the package: three levels above this module both in `src/transports/ui/`
 * (tests run the sources) and in `dist/transports/ui/` (the installed package).
 */
export function defaultAssetDir(): string {
  return fileURLToPath(new URL('../../../ui/', import.meta.url));
}

/** The assets in `dir` by file name; empty when the folder is missing. */
export function loadUiAssets(dir: string = defaultAssetDir()): ReadonlyMap<string, UiAsset> {
  const assets = new Map<string, UiAsset>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return assets;
  }
  for (const name of names.sort()) {
    const contentType = CONTENT_TYPES[extname(name)];
    const path = join(dir, name);
    if (!ASSET_NAME.test(name) || contentType === undefined || !statSync(path).isFile()) continue;
    assets.set(name, { contentType, body: readFileSync(path) });
  }
  return assets;
}
