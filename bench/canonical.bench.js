// jcs canonicalise + SHA-256 of a ~500-byte envelope: Plexus's canonicalizeJcs against the
// `canonicalize` npm package, both hashed with the same sha256Hex, measured interleaved in one run.
// Target (issue 2, item 10): Plexus >= 1.5x the package. Run `npm run build` first.
import canonicalize from 'canonicalize';
import { canonicalizeJcs } from '../dist/core/canonical/jcs.js';
import { sha256Hex } from '../dist/core/hash.js';
import { compare, report } from './lib.js';

// A request envelope as the runtime builds it: fields in declaration order, not sorted.
const envelope = {
  id: '6f1c2a4e-8b7d-4c3e-9a2f-1d5e7b9c0a3f',
  kind: 'request',
  from: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
  to: 'notes-agent',
  verb: 'memory.notes.search@1',
  data: {
    query: 'quarterly revenue summary',
    limit: 20,
    filters: { tags: ['finance', 'q3'], since: '2025-07-01' },
    includeArchived: false,
  },
  correlationId: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed',
  tenantId: 'acme',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  timestamp: '2025-06-01T12:00:00.000Z',
  schemaVersion: '1',
  extensions: { _x_priority: 3 },
};

const bytes = Buffer.byteLength(canonicalizeJcs(envelope));
if (canonicalizeJcs(envelope) !== canonicalize(envelope)) {
  console.error('canonical forms differ; the comparison would be meaningless');
  process.exit(1);
}

const results = compare({
  'plexus canonicalizeJcs + sha256': () => sha256Hex(canonicalizeJcs(envelope)),
  'canonicalize (npm) + sha256': () => sha256Hex(canonicalize(envelope)),
});
report(`jcs canonicalise + SHA-256 of a ${bytes}-byte envelope`, results, {
  subject: 'plexus canonicalizeJcs + sha256',
  baseline: 'canonicalize (npm) + sha256',
  target: '>= 1.5x',
  pass: (ratio) => ratio >= 1.5,
});
