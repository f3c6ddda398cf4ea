import { agent, verb } from 'plexus/sdk';

const input = { type: 'object', properties: { name: { type: 'string' } } };
const output = { type: 'object', required: ['text'], properties: { text: { type: 'string' } } };
const hello = verb('greet.hello', { input, output }, ({ name = 'world' }) => ({ text: `hello, ${name}` }));

export default agent('greet', [hello]);
