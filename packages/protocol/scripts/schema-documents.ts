import { z } from 'zod';
import { ANSWER_TYPES, PROTOCOL_VERSION, SESSION_EVENT_TYPES, type ClientMessageType } from '../src/index.js';
import { CLIENT_MESSAGES, SERVER_MESSAGES, buildSchemaRegistry } from './schema-catalog.js';
import { buildAgentWireJsonSchema } from './agent-wire-schema.js';

type Json = Record<string, unknown>;

/** The generated files, by their path relative to the package. */
export const SCHEMA_FILES = {
  jsonSchema: 'schema/interthought.schema.json',
  asyncapi: 'schema/asyncapi.json',
  agentWireJsonSchema: 'schema/interthought-agent.schema.json',
} as const;

const ref = (pointer: string): Json => ({ $ref: pointer });

/**
 * Every message and shared schema as JSON Schema, converted once by `z.toJSONSchema` from the zod
 * schemas; `refBase` is where the definitions live in the document that embeds them.
 */
export function schemaDefinitions(refBase: string): Record<string, Json> {
  const registry = buildSchemaRegistry();
  const { schemas } = z.toJSONSchema(registry, { metadata: registry, uri: (id) => `${refBase}${id}` });
  const definitions: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    // Embedded definitions take their dialect and base from the document holding them.
    const { $schema, $id, ...rest } = schema as Json;
    void $schema;
    void $id;
    definitions[id] = rest;
  }
  return definitions;
}

/** The JSON Schema (draft 2020-12) of both directions: any frame is a `ClientMessage` or a `ServerMessage`. */
export function buildJsonSchema(version: string): Json {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `Interthought wire protocol ${PROTOCOL_VERSION} (@interthought/protocol ${version})`,
    description:
      'Every frame of the /ws WebSocket. Generated from the zod schemas of @interthought/protocol by scripts/generate-schemas.ts: do not edit.',
    anyOf: [ref('#/$defs/ClientMessage'), ref('#/$defs/ServerMessage')],
    $defs: schemaDefinitions('#/$defs/'),
  };
}

const CHANNEL = '#/channels/interthought';
const channelMessage = (id: string): Json => ref(`${CHANNEL}/messages/${id}`);

function componentMessages(): Json {
  const messages: Json = {};
  const entries = [...Object.entries(CLIENT_MESSAGES), ...Object.entries(SERVER_MESSAGES)];
  for (const [type, { id, summary }] of entries) {
    messages[id] = { name: type, title: type, summary, contentType: 'application/json', payload: ref(`#/components/schemas/${id}`) };
  }
  return messages;
}

/** One `receive` operation per request, with its answers (and `error`) as the reply. */
function requestOperations(): Json {
  const operations: Json = {};
  for (const [type, { id, summary }] of Object.entries(CLIENT_MESSAGES) as Array<[ClientMessageType, { id: string; summary: string }]>) {
    const answers = [...ANSWER_TYPES[type].map((answer) => SERVER_MESSAGES[answer].id), SERVER_MESSAGES.error.id];
    operations[id] = {
      action: 'receive',
      channel: ref(CHANNEL),
      title: type,
      summary,
      messages: [channelMessage(id)],
      reply: { channel: ref(CHANNEL), messages: answers.map(channelMessage) },
    };
  }
  return operations;
}

/** The frames the server sends on its own: `hello`, the events of every subscribed session, and list changes to list watchers. */
function pushOperations(): Json {
  return {
    sendHello: {
      action: 'send',
      channel: ref(CHANNEL),
      summary: 'The server speaks first: one `hello` per connection.',
      messages: [channelMessage(SERVER_MESSAGES.hello.id)],
    },
    sendSessionEvents: {
      action: 'send',
      channel: ref(CHANNEL),
      summary: 'The events of every session the connection is subscribed to, per session in `seq` order (1, 2, 3 … with no gaps).',
      messages: SESSION_EVENT_TYPES.map((type) => channelMessage(SERVER_MESSAGES[type].id)),
    },
    sendSessionListChanges: {
      action: 'send',
      channel: ref(CHANNEL),
      summary: 'To a connection that sent `sessions.watch`: every session created, changed or deleted, until `sessions.unwatch`.',
      messages: [channelMessage(SERVER_MESSAGES['sessions.changed'].id), channelMessage(SERVER_MESSAGES['sessions.removed'].id)],
    },
  };
}

/** The AsyncAPI 3.0 document of the `/ws` channel; its payloads are the same JSON Schemas as `buildJsonSchema`'s. */
export function buildAsyncApi(version: string): Json {
  const messageIds = [...Object.values(CLIENT_MESSAGES), ...Object.values(SERVER_MESSAGES)].map(({ id }) => id);
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Interthought',
      version,
      description: `Live, correctable agent reasoning over one WebSocket (protocol \`${PROTOCOL_VERSION}\`). JSON text frames, one message per frame. Generated from the zod schemas of @interthought/protocol: do not edit.`,
      license: { name: 'MIT' },
    },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: '127.0.0.1:3000',
        protocol: 'ws',
        description: 'A server started with `pnpm start` (HOST and PORT change it).',
        security: [ref('#/components/securitySchemes/token')],
      },
    },
    channels: {
      interthought: {
        address: '/ws',
        title: 'Interthought session stream',
        description: 'One WebSocket per client. Requests may carry `id`; every direct answer carries it back as `requestId`.',
        messages: Object.fromEntries(messageIds.map((id) => [id, ref(`#/components/messages/${id}`)])),
        bindings: { ws: { method: 'GET', bindingVersion: '0.1.0' } },
      },
    },
    operations: { ...requestOperations(), ...pushOperations() },
    components: {
      schemas: schemaDefinitions('#/components/schemas/'),
      messages: componentMessages(),
      securitySchemes: {
        token: {
          type: 'httpApiKey',
          name: 'token',
          in: 'query',
          description: 'Required only when the server is started with INTERTHOUGHT_TOKEN.',
        },
      },
    },
  };
}

/** The text of every generated file, keyed by its path relative to the package. */
export function renderSchemaFiles(version: string): Record<string, string> {
  const text = (document: Json): string => `${JSON.stringify(document, null, 2)}\n`;
  return {
    [SCHEMA_FILES.jsonSchema]: text(buildJsonSchema(version)),
    [SCHEMA_FILES.asyncapi]: text(buildAsyncApi(version)),
    [SCHEMA_FILES.agentWireJsonSchema]: text(buildAgentWireJsonSchema(version)),
  };
}
