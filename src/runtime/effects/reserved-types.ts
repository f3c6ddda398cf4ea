/**
 * Event types a verb's handler may never emit, even when declared: the namespaces the node's
 * own projections read (`job.`, `ledger.`, `guard.` …). An emitted `job.completed` would
 * otherwise rewrite another job's state.
 */
import type { Projection } from '../../store/projection.js';

/** Namespaces the runtime writes beside its projections' (audit entries, the ledger). */
export const RUNTIME_NAMESPACES = ['agent', 'audit', 'job', 'ledger', 'ucan'] as const;

function namespaceOf(typeOrPrefix: string): string {
  const dot = typeOrPrefix.indexOf('.');
  return dot === -1 ? typeOrPrefix : typeOrPrefix.slice(0, dot);
}

/**
 * A predicate that is true for every type in the namespace of a type or type prefix one of
 * `projections` reads, or in `extra` namespaces.
 */
export function reservedTypes(
  projections: readonly Projection<unknown>[],
  extra: readonly string[] = RUNTIME_NAMESPACES,
): (type: string) => boolean {
  const namespaces = new Set<string>(extra);
  for (const p of projections) {
    const f = p.filter;
    if (f === undefined) continue;
    if (f.typePrefix !== undefined) namespaces.add(namespaceOf(f.typePrefix));
    const types = f.type === undefined ? [] : typeof f.type === 'string' ? [f.type] : f.type;
    for (const t of types) namespaces.add(namespaceOf(t));
  }
  return (type) => namespaces.has(namespaceOf(type));
}
