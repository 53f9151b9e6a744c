import { z } from 'zod';
import { ERROR_CODES } from './error.js';
import { SessionInfoSchema, SessionSnapshotSchema } from './session.js';
import { SHARE_EXPIRY_LIMITS, ShareGrantSchema, ShareRecordSchema, ShareRoleSchema, UserSchema } from './sharing.js';

/**
 * The bodies of the server's REST side (`/api`): lists, snapshots and health. Live data goes over
 * the WebSocket; these are for pages, scripts and uptime checks. Tolerant of unknown fields, like
 * every server → client shape.
 */

/** An agent as `GET /api/agents` lists it; `reason` says why one is unavailable (e.g. no API key). */
export const AgentListingSchema = z.looseObject({
  name: z.string(),
  description: z.string(),
  available: z.boolean(),
  reason: z.string().optional(),
  /** The agent `session.create` uses when none is named. */
  default: z.boolean(),
  /** The models a session may pick with `options.model`, the default among them (capability `models`); absent: the agent takes no model choice. */
  models: z.array(z.string()).optional(),
  /** The model of a session that names none (with `models`). */
  defaultModel: z.string().optional(),
  /** The agent also takes a model it does not list (with `models`). */
  anyModel: z.boolean().optional(),
});

/** A tool as `GET /api/tools` lists it: what agents may call, where it comes from, and its input. */
export const ToolListingSchema = z.looseObject({
  /** The name agents call it by (an MCP server's tool: `mcp__<server>__<tool>`). */
  name: z.string(),
  description: z.string(),
  /** Built into the server, or offered by an MCP server the server is configured with. */
  source: z.enum(['builtin', 'mcp']),
  /** The MCP server's name in the server's configuration (only for `source: "mcp"`). */
  server: z.string().optional(),
  /** The tool's input as JSON Schema: the MCP server's own for its tools. */
  inputSchema: z.record(z.string(), z.unknown()),
  /** Whether the tool only reads; one that does not waits for approval by default (§19.1). */
  readOnly: z.boolean(),
});

/** `GET /api/tools`: every tool the server's agents may call. */
export const ToolListSchema = z.looseObject({
  tools: z.array(ToolListingSchema),
});

/** `GET /api/sessions`: a page of sessions, newest first; `nextCursor` is the `before` of the next page. */
export const SessionPageSchema = z.looseObject({
  sessions: z.array(SessionInfoSchema),
  nextCursor: z.string().optional(),
});

/** `GET /api/sessions/:id`: the same whole tree as a `session.snapshot` frame, without `type` and `requestId`. */
export const SessionSnapshotBodySchema = SessionSnapshotSchema.omit({ type: true, requestId: true });

/** `GET /api/health`: always public, for load balancers and uptime checks. */
/** The store's health, as `GET /api/health` reports it for a store over the network (Postgres). */
export const StoreHealthSchema = z.looseObject({
  /** Which store keeps the sessions. */
  kind: z.enum(['sqlite', 'postgres', 'redis', 'memory']),
  /** Whether the store answered a trivial query just now (within 2 s). */
  ok: z.boolean(),
  /** That query's round trip, in ms (absent when it failed). */
  latencyMs: z.number().min(0).optional(),
  /** The connection pool: its size limit, connections open, idle, and queries waiting for one. */
  pool: z
    .looseObject({
      max: z.number().int().min(0),
      total: z.number().int().min(0),
      idle: z.number().int().min(0),
      waiting: z.number().int().min(0),
    })
    .optional(),
});

export const HealthSchema = z.looseObject({
  ok: z.literal(true),
  version: z.string(),
  /** Seconds since the server process started. */
  uptime: z.number(),
  /** Sessions whose agent is running or paused right now (on this process). */
  sessions: z.number().int().min(0),
  /** In cluster mode: this node and what it does for the cluster. */
  cluster: z
    .looseObject({
      nodeId: z.string(),
      redis: z.enum(['ready', 'reconnecting']),
      ownedSessions: z.number().int().min(0),
      leaseRenewals: z.number().int().min(0),
      takeovers: z.number().int().min(0),
      lostSessions: z.number().int().min(0),
      fencedAppends: z.number().int().min(0),
      routedCommands: z.number().int().min(0),
      servedCommands: z.number().int().min(0),
      followedSessions: z.number().int().min(0),
    })
    .optional(),
  /** The store's kind, round trip and pool, for a store that reports them (Postgres). */
  store: StoreHealthSchema.optional(),
});

/** REST-only error codes next to the protocol's: a malformed query, and an unknown route. */
export const REST_ERROR_CODES = { BAD_REQUEST: 'BAD_REQUEST', NOT_FOUND: 'NOT_FOUND', BAD_IMPORT: 'BAD_IMPORT' } as const;

/** The body of every failed REST call (with its HTTP status); `code` may be one this version does not know. */
export const RestErrorSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
});

export type AgentListing = z.infer<typeof AgentListingSchema>;
export type ToolListing = z.infer<typeof ToolListingSchema>;
export type ToolList = z.infer<typeof ToolListSchema>;
export type SessionPage = z.infer<typeof SessionPageSchema>;
export type SessionSnapshotBody = z.infer<typeof SessionSnapshotBodySchema>;
export type Health = z.infer<typeof HealthSchema>;
export type StoreHealth = z.infer<typeof StoreHealthSchema>;
export type RestErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES] | (typeof REST_ERROR_CODES)[keyof typeof REST_ERROR_CODES];
export type RestError = z.infer<typeof RestErrorSchema>;

/** `GET /api/me`: who the request's credentials say it is (PROTOCOL.md §21.1); answered signed in or not. */
export const MeSchema = z.looseObject({
  /** How the server lets clients in (§3.3). */
  auth: z.enum(['none', 'token', 'jwt', 'proxy']),
  /** Whether the request may use the server as a user (always true with `none`). */
  signedIn: z.boolean(),
  user: UserSchema.optional(),
  /** The session a share link presented with the request reaches, and as what. */
  share: ShareGrantSchema.optional(),
  /** Where the operator's sign-in page is (INTERTHOUGHT_LOGIN_URL), when configured. */
  loginUrl: z.string().optional(),
  /** Why the request is not signed in: what is missing or wrong. */
  reason: z.string().optional(),
});

/** `GET /api/sessions/:id/shares`: the session's links that were not revoked. */
export const ShareListSchema = z.looseObject({ shares: z.array(ShareRecordSchema) });

/** `POST /api/sessions/:id/shares`: the body; answered like `session.shared` without `type` and `requestId`. */
export const ShareCreateBodySchema = z.strictObject({
  role: ShareRoleSchema,
  expiresInSec: z.number().int().min(SHARE_EXPIRY_LIMITS.minSec).max(SHARE_EXPIRY_LIMITS.maxSec).optional(),
});

export type Me = z.infer<typeof MeSchema>;
export type ShareList = z.infer<typeof ShareListSchema>;
export type ShareCreateBody = z.infer<typeof ShareCreateBodySchema>;
