// Baseline (a): a bare `node:http` JSON echo. It parses the body and writes it back with
// JSON.stringify — the least any JSON-over-HTTP face must do. Started as a child process.
import { createServer } from 'node:http';
import { announce, HOST } from './announce.js';

const MAX_BODY = 1024 * 1024;

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  /** @type {Buffer[]} */
  const chunks = [];
  let size = 0;
  req.on('data', (/** @type {Buffer} */ chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY) {
      res.writeHead(413).end();
      return;
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid JSON"}');
      return;
    }
    const out = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, HOST, () => announce(server));
