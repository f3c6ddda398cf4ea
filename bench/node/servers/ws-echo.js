// Baseline (b): a bare `ws` JSON-RPC 2.0 echo. Each text frame is parsed and answered with
// `{ jsonrpc: '2.0', id, result: params }`; a frame that is not JSON gets the -32700 error.
// Started as a child process.
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { announce, HOST } from './announce.js';

const server = createServer((_req, res) => res.writeHead(426, { upgrade: 'websocket' }).end());
const wss = new WebSocketServer({ server, maxPayload: 1024 * 1024 });
wss.on('connection', (socket) => {
  socket.on('message', (data) => {
    let msg;
    try {
      msg = JSON.parse(data.toString());
    } catch {
      socket.send('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      return;
    }
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, result: msg.params ?? null }));
  });
});
server.listen(0, HOST, () => announce(server));
