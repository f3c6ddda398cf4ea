// A small wscat for a node's WebSocket JSON-RPC face: reads requests from standard input, one
// JSON text per line, sends them in order over one WebSocket and prints every message the
// node sends back, one per line. Each request waits for its answer (and prints the
// notifications before it, such as `stream.data`); a notification (no `id`) waits for nothing.
//
//   node examples/rpc.js [URL] < requests.jsonl     # URL: ws://127.0.0.1:3100/rpc by default
//
// Run it from the repository (it needs the `ws` package). `wscat -c URL` does the same by hand.
import { createInterface } from 'node:readline';
import WebSocket from 'ws';

const url = process.argv[2] ?? 'ws://127.0.0.1:3100/rpc';

/** The ids a request line waits for the answers of (`null` for a line that is not JSON, or an empty batch). */
function idsOf(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return [null];
  }
  const calls = Array.isArray(message) ? message : [message];
  if (calls.length === 0) return [null];
  return calls
    .filter((call) => typeof call === 'object' && call !== null && 'id' in call)
    .map((call) => call.id);
}

const socket = new WebSocket(url);
const lines = [];
const input = createInterface({ input: process.stdin });
let inputDone = false;
let open = false;
/** The ids the current request still waits for. */
let waiting = new Set();

function next() {
  if (!open || waiting.size > 0) return;
  const line = lines.shift();
  if (line === undefined) {
    if (inputDone) socket.close();
    return;
  }
  waiting = new Set(idsOf(line));
  socket.send(line);
  next();
}

input.on('line', (line) => {
  if (line.trim() === '') return;
  lines.push(line);
  next();
});
input.on('close', () => {
  inputDone = true;
  next();
});
socket.on('open', () => {
  open = true;
  next();
});
socket.on('message', (data) => {
  const text = String(data);
  console.log(text);
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return;
  }
  for (const answer of Array.isArray(message) ? message : [message]) {
    if (typeof answer === 'object' && answer !== null && ('result' in answer || 'error' in answer)) {
      waiting.delete(answer.id ?? null);
    }
  }
  if (Array.isArray(message)) waiting.clear();
  next();
});
socket.on('error', (error) => {
  console.error(`rpc: ${url}: ${error.message}`);
  process.exitCode = 1;
});
socket.on('close', () => {
  input.close();
  if (waiting.size > 0 || lines.length > 0) process.exitCode = 1;
});
