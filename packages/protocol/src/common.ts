import { z } from 'zod';
import { FIELD_LIMITS } from './limits.js';

/** A client-chosen request id, echoed as `requestId` on every direct answer. */
export const RequestIdSchema = z.string().min(1).max(FIELD_LIMITS.requestIdMax);

/** A server-generated identifier (session, step, connection). */
export const IdSchema = z.string().min(1).max(FIELD_LIMITS.idMax);

/** An ISO-8601 timestamp. Outbound only, so it is not re-validated as a date. */
export const TimestampSchema = z.string();

/** The per-session event sequence number: 1, 2, 3 … with no gaps. */
export const SeqSchema = z.number().int().min(1);

/** Fields every session event carries. */
export const sessionEventBase = {
  sessionId: IdSchema,
  seq: SeqSchema,
  at: TimestampSchema,
};

/** Request fields every client frame may carry. */
export const requestBase = {
  id: RequestIdSchema.optional(),
};

/** Direct answers echo the request id. */
export const answerBase = {
  requestId: RequestIdSchema.optional(),
};

export type RequestId = z.infer<typeof RequestIdSchema>;
