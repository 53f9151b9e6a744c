import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** The token a request presents: `Authorization: Bearer <token>` or `?token=` (browsers cannot set headers on a WebSocket). */
export function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const query = request.query as Record<string, unknown> | undefined;
  const token = query?.token;
  return typeof token === 'string' ? token : undefined;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compare in constant time (hashing first makes the lengths equal). */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  return presented !== undefined && timingSafeEqual(digest(presented), digest(expected));
}

/** Replace the value of any `token` or `share` query parameter so it never reaches a log line. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|share)=)[^&#]*/gi, '$1[redacted]');
}
