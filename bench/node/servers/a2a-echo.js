// Baseline (d): the A2A JS SDK (`@a2a-js/sdk` 1.x, A2A protocol v1.0) answering `SendMessage`
// over its JSON-RPC HTTP binding, wired as the SDK's samples do (express + `agentCardHandler`
// + `jsonRpcHandler` over one `DefaultRequestHandler` with an `InMemoryTaskStore`). The
// executor echoes: it publishes one agent Message carrying the user message's parts. With the
// argument `--tasks` it answers as a task instead — the Task (submitted, the user message in its
// history), an artifact with the message's parts, then the status completed — so every message
// leaves a task in the `InMemoryTaskStore`, as every message leaves a job in Plexus's log.
// Started as a child process.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { announce, HOST } from './announce.js';

/** @type {import('@a2a-js/sdk/server').AgentExecutor} */
const echoExecutor = {
  execute(context, bus) {
    const incoming = context.userMessage;
    bus.publish(
      AgentEvent.message({
        messageId: randomUUID(),
        contextId: context.contextId,
        taskId: '',
        role: Role.ROLE_AGENT,
        parts: incoming.parts,
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      }),
    );
    bus.finished();
    return Promise.resolve();
  },
  cancelTask: () => Promise.resolve(),
};

const now = () => new Date().toISOString();

/** @type {import('@a2a-js/sdk/server').AgentExecutor} */
const taskExecutor = {
  execute(context, bus) {
    const base = { taskId: context.taskId, contextId: context.contextId };
    bus.publish(
      AgentEvent.task({
        id: context.taskId,
        contextId: context.contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.artifactUpdate({
        ...base,
        artifact: {
          artifactId: randomUUID(),
          name: 'echo',
          description: '',
          parts: context.userMessage.parts,
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        ...base,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() },
        metadata: undefined,
      }),
    );
    bus.finished();
    return Promise.resolve();
  },
  cancelTask: () => Promise.resolve(),
};
const executor = process.argv.includes('--tasks') ? taskExecutor : echoExecutor;

/** @param {number} port @returns {import('@a2a-js/sdk').AgentCard} */
const agentCard = (port) => ({
  name: 'Bench Echo Agent',
  description: 'Echoes every message back',
  supportedInterfaces: [
    {
      url: `http://${HOST}:${port}/a2a/jsonrpc`,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion: '1.0',
    },
  ],
  provider: undefined,
  version: '1.0.0',
  capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text'],
  defaultOutputModes: ['text'],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Returns the message it is sent',
      tags: ['echo'],
      examples: ['hello'],
      inputModes: ['text'],
      outputModes: ['text'],
      securityRequirements: [],
    },
  ],
  signatures: [],
});

// The card names the bound port, so listen first and mount the routes once it is known.
const app = express();
const server = app.listen(0, HOST, () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('a2a-echo: not on TCP');
  const requestHandler = new DefaultRequestHandler(
    agentCard(address.port),
    new InMemoryTaskStore(),
    executor,
  );
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  announce(server);
});
server.keepAliveTimeout = 60_000;
