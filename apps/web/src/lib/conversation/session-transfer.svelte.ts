import type { SessionInfo } from '@interthought/protocol';
import type { ExportFormat, ExportedFile, RestApi } from '$lib/api/rest-api.js';
import { describeError } from '$lib/app/error-text.js';
import type { Toaster } from '$lib/app/toaster.svelte.js';
import type { I18n } from '$lib/i18n/index.js';
import type { SessionList } from '$lib/session-list/session-list.svelte.js';
import { saveFile } from './export-download.js';

/** A file the user picked (a `File`, or anything that reads as text with a name). */
export interface PickedFile {
  name: string;
  text(): Promise<string>;
}

export interface SessionTransferDeps {
  api: Pick<RestApi, 'exportSession' | 'importSession'>;
  toaster: Toaster;
  i18n: I18n;
  sessionList: Pick<SessionList, 'upsert'>;
  /** Open a session's page (SvelteKit's goto in the app). */
  openSession: (sessionId: string) => void | Promise<void>;
  /** How an export reaches the user; a browser download unless a test says otherwise. */
  save?: (file: ExportedFile) => void;
}

/**
 * Export a session as a file (Markdown or the NDJSON log) and import such a log as a new
 * session (PROTOCOL.md §20.5). Each runs once at a time; what went wrong is a toast that says
 * where (an import's refused line) and what to do.
 */
export class SessionTransfer {
  #exporting = $state<ExportFormat | null>(null);
  #importing = $state(false);

  constructor(private readonly deps: SessionTransferDeps) {}

  /** The export on its way, if any. */
  get exporting(): ExportFormat | null {
    return this.#exporting;
  }

  get importing(): boolean {
    return this.#importing;
  }

  async exportAs(sessionId: string, format: ExportFormat): Promise<void> {
    if (this.#exporting) return;
    this.#exporting = format;
    const { i18n, toaster } = this.deps;
    try {
      const file = await this.deps.api.exportSession(sessionId, format, { ...readerZone(), lang: i18n.locale });
      (this.deps.save ?? saveFile)(file);
      toaster.show({ tone: 'info', title: i18n.t('transfer.downloaded', { file: file.fileName }) });
    } catch (error) {
      const text = describeError(error, i18n);
      toaster.show({ tone: 'error', title: i18n.t('transfer.exportFailed'), message: text.message, hint: text.hint });
    } finally {
      this.#exporting = null;
    }
  }

  /** Import a picked export and open the new session; `undefined` when it was refused (a toast says why). */
  async importFile(file: PickedFile): Promise<SessionInfo | undefined> {
    if (this.#importing) return undefined;
    this.#importing = true;
    const { i18n, toaster } = this.deps;
    try {
      const session = await this.deps.api.importSession(await file.text());
      this.deps.sessionList.upsert(session);
      toaster.show({ tone: 'info', title: i18n.t('transfer.imported') });
      await this.deps.openSession(session.sessionId);
      return session;
    } catch (error) {
      const text = describeError(error, i18n);
      const line = (error as { line?: unknown }).line;
      toaster.show({
        tone: 'error',
        title: i18n.t('transfer.importFailed', { file: file.name }),
        message: typeof line === 'number' ? i18n.t('transfer.importLine', { line, message: text.message }) : text.message,
        hint: text.hint,
      });
      return undefined;
    } finally {
      this.#importing = false;
    }
  }
}

/** The browser's time zone, when it names one (an export then reads in local time; the server writes UTC otherwise). */
function readerZone(): { timeZone?: string } {
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return timeZone ? { timeZone } : {};
}
