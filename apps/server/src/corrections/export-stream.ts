import type { CorrectionExportFormat, SessionState } from '@interthought/protocol';
import { SessionError } from '../core/session-error.js';
import type { SessionService } from '../core/session-service.js';
import { foldExport } from '../core/transfer/session-export.js';
import { allCorrections, type CorrectionIndex, type CorrectionQuery } from './correction-index.js';
import { exportLineOf } from './export-lines.js';

/** Sessions' states kept while an export runs: its records come newest first, a session's often together. */
const STATES_KEPT = 16;

export interface ExportSource {
  index: CorrectionIndex;
  sessions: Pick<SessionService, 'exportSession'>;
  query: Omit<CorrectionQuery, 'limit' | 'before'>;
  format: CorrectionExportFormat;
}

/**
 * The export's lines, one JSON object and a line feed each, read page by page from the index: each
 * line's messages come from its session's state (read once for its records in a row). A session
 * deleted while the export runs is left out.
 */
export async function* correctionExportLines({ index, sessions, query, format }: ExportSource): AsyncGenerator<string> {
  const states = new Map<string, SessionState | undefined>();
  const stateOf = async (sessionId: string): Promise<SessionState | undefined> => {
    if (states.has(sessionId)) return states.get(sessionId);
    let state: SessionState | undefined;
    try {
      state = foldExport(await sessions.exportSession(sessionId));
    } catch (error) {
      if (!(error instanceof SessionError && error.code === 'SESSION_NOT_FOUND')) throw error;
    }
    if (states.size >= STATES_KEPT) states.delete(states.keys().next().value!);
    states.set(sessionId, state);
    return state;
  };
  for await (const record of allCorrections(index, query)) {
    const state = await stateOf(record.sessionId);
    const line = state === undefined ? undefined : exportLineOf(record, state, format);
    if (line !== undefined) yield `${JSON.stringify(line)}\n`;
  }
}
