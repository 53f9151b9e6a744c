import { createSessionState, type SessionSnapshotData, type SessionState } from '@interthought/protocol';

/** The session's state as `GET /api/sessions/:id` gives it. */
export async function foldSnapshot(baseUrl: string, sessionId: string, headers: Record<string, string> = {}): Promise<SessionState> {
  const response = await fetch(`${baseUrl}/api/sessions/${sessionId}`, { headers });
  if (response.status !== 200) throw new Error(`GET /api/sessions/${sessionId} answered ${response.status}`);
  return createSessionState((await response.json()) as SessionSnapshotData);
}
