import { generateKeyPair } from '../dist/security/index.js';
import { createMeshPeer } from '../dist/transports/mesh/mesh-peer.js';
process.on('uncaughtException', (e) => { console.log('UNCAUGHT', e.name, e.message, e.stack.split('\n').slice(0,3).join(' | ')); });
const make = () => createMeshPeer({ seed: generateKeyPair().secretKey, listen: ['/ip4/127.0.0.1/tcp/0'], announce: [], maxMessageBytes: 65536 });
const a = await make(); const b = await make();
await b.handle('/probe/1', (stream) => {
  stream.addEventListener('close', (e) => console.log('server close', e.error?.name, e.local));
  stream.addEventListener('message', (ev) => { console.log('server got', ev.data.byteLength); stream.send(ev.data.subarray()); });
});
await a.dial(b.getMultiaddrs()[0]);
const s = await a.dialProtocol(b.peerId, '/probe/1', { signal: AbortSignal.timeout(1500) });
s.addEventListener('close', (e) => console.log('client close', e.error?.name, e.local));
(async () => { try { for await (const c of s) console.log('client got', c.byteLength); console.log('iter end'); } catch (e) { console.log('iter threw', e.name); } })();
s.send(new Uint8Array([1,2,3]));
await new Promise((r) => setTimeout(r, 3000));
console.log('after 3s status', s.status);
s.send(new Uint8Array([4]));
await new Promise((r) => setTimeout(r, 9000));
console.log('after 12s status', s.status);
try { s.send(new Uint8Array([5])); } catch (e) { console.log('send threw', e.name); }
await new Promise((r) => setTimeout(r, 1000));
s.abort(new Error('bye'));
await new Promise((r) => setTimeout(r, 500));
await a.stop(); await b.stop();
