import { ChaosSocket } from './chaos-socket.js';
import type { DurableLog } from './session-ledger.js';
import { isSessionEvent } from './wire-frame.js';

const READ_TIMEOUT_MS = 30_000;

/**
 * Read a session's whole log as the store holds it: a fresh connection subscribes with
 * `afterSeq: 0` and collects the replay up to the `lastSeq` its answer names. Replayed events are
 * never coalesced, so the map holds every event on its own. Throws when the replay is not
 * `1 … lastSeq` in order (that would itself be a broken log).
 */
export async function readDurableLog(wsUrl: string, sessionId: string): Promise<DurableLog> {
  const socket = await ChaosSocket.connect(wsUrl);
  const events = new Map<number, string>();
  try {
    return await new Promise<DurableLog>((resolve, reject) => {
      let lastSeq: number | undefined;
      const timer = setTimeout(() => reject(new Error(`reading the log of ${sessionId} took over ${READ_TIMEOUT_MS} ms (${events.size} events read)`)), READ_TIMEOUT_MS);
      const done = (error?: Error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(events);
      };
      socket.onClose = (code) => done(new Error(`the connection reading the log of ${sessionId} closed with ${code}`));
      socket.onFrame = (raw, frame) => {
        if (frame === undefined || frame.sessionId !== sessionId) return;
        if (frame.type === 'session.subscribed') {
          lastSeq = frame.lastSeq ?? 0;
          if (lastSeq === 0) done();
          return;
        }
        if (frame.type === 'error') {
          done(new Error(`reading the log of ${sessionId}: ${frame.code}: ${frame.message}`));
          return;
        }
        if (!isSessionEvent(frame) || lastSeq === undefined || frame.seq > lastSeq) return;
        if (frame.seq !== events.size + 1 || frame.fromSeq !== undefined) {
          done(new Error(`the replay of ${sessionId} from afterSeq 0 sent seq ${frame.seq}${frame.fromSeq === undefined ? '' : ` (from ${frame.fromSeq})`} after ${events.size}`));
          return;
        }
        events.set(frame.seq, raw);
        if (frame.seq === lastSeq) done();
      };
      socket.send({ type: 'session.subscribe', id: 'log', sessionId, afterSeq: 0 });
    });
  } finally {
    socket.onClose = undefined;
    socket.close();
  }
}

/** `GET /api/sessions/:id`: the stored status and last seq of a session. */
export async function readStoredSession(httpUrl: string, sessionId: string): Promise<{ status: string; seq: number }> {
  const response = await fetch(`${httpUrl}/api/sessions/${encodeURIComponent(sessionId)}`, { signal: AbortSignal.timeout(15_000) });
  if (!response.ok) throw new Error(`GET /api/sessions/${sessionId} answered ${response.status}`);
  const body = (await response.json()) as { session?: { status?: string }; seq?: number };
  return { status: body.session?.status ?? '?', seq: body.seq ?? -1 };
}
