import type { CorrectionExportFormat, CorrectionFilter } from '@interthought/protocol';
import type { ExportedFile, RestApi } from '$lib/api/rest-api.js';
import { describeError } from '$lib/app/error-text.js';
import type { Toaster } from '$lib/app/toaster.svelte.js';
import { saveFile } from '$lib/conversation/export-download.js';
import type { I18n } from '$lib/i18n/index.js';

export interface CorrectionDownloadsDeps {
  api: Pick<RestApi, 'exportCorrections'>;
  toaster: Toaster;
  i18n: I18n;
  /** How a file reaches the user; a browser download unless a test says otherwise. */
  save?: (file: ExportedFile) => void;
}

/**
 * The two downloads of the Corrections page (PROTOCOL.md §26.3). The links name the export's
 * address (to copy, or to fetch with a token of one's own); a click fetches it with this tab's
 * token in a header, as a session's export does, and saves it. One at a time; a failure is a toast.
 */
export class CorrectionDownloads {
  #busy = $state<CorrectionExportFormat | null>(null);

  constructor(private readonly deps: CorrectionDownloadsDeps) {}

  /** The download on its way, if any. */
  get busy(): CorrectionExportFormat | null {
    return this.#busy;
  }

  async download(format: CorrectionExportFormat, filter: CorrectionFilter): Promise<void> {
    if (this.#busy) return;
    this.#busy = format;
    const { i18n, toaster } = this.deps;
    try {
      const file = await this.deps.api.exportCorrections(format, filter);
      (this.deps.save ?? saveFile)(file);
      toaster.show({ tone: 'info', title: i18n.t('transfer.downloaded', { file: file.fileName }) });
    } catch (error) {
      const text = describeError(error, i18n);
      toaster.show({ tone: 'error', title: i18n.t('corrections.download.failed'), message: text.message, hint: text.hint });
    } finally {
      this.#busy = null;
    }
  }
}
