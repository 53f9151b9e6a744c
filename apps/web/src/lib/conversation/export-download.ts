import type { ExportedFile } from '$lib/api/rest-api.js';

/**
 * Save a fetched export as a download. The file was fetched with the token in a header (see
 * `RestApi.exportSession`), so it is handed to the browser as an object URL on a `download` link.
 */
export function saveFile(file: ExportedFile, document: Document = globalThis.document): void {
  const url = URL.createObjectURL(file.blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = file.fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser reads the object URL when the download starts, after this task: revoke it later.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
