/**
 * RFC 6570 level-1 URI templates as MCP resource templates use them (issue 13 item 4): each
 * `{name}` variable matches one or more characters other than `/`, percent-decoded.
 */

const VARIABLE = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The variable names of a URI template, in order (none: a fixed URI). */
export function templateVariables(template: string): string[] {
  return [...template.matchAll(VARIABLE)].map((m) => m[1] ?? '');
}

/**
 * The variables of `uri` under `template`, or `undefined` when it does not match.
 * @example matchTemplate('notes://{id}', 'notes://7') // { id: '7' }
 */
export function matchTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  let pattern = '^';
  let last = 0;
  for (const m of template.matchAll(VARIABLE)) {
    pattern += template.slice(last, m.index).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '([^/]+)';
    names.push(m[1] ?? '');
    last = m.index + m[0].length;
  }
  pattern += template.slice(last).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
  const found = new RegExp(pattern).exec(uri);
  if (found === null) return undefined;
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    const value = found[i + 1] ?? '';
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      params[name] = value;
    }
  });
  return params;
}
