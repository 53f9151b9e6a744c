/** What the import's file picker offers: an export as downloaded (`.ndjson`), or renamed `.json`. */
export const IMPORT_ACCEPT = '.ndjson,.json,.jsonl,application/x-ndjson,application/json';

/** The file the picker's `change` event carries, and the picker cleared so picking the same file again fires again. */
export function takePickedFile(event: Event): File | undefined {
  const input = event.currentTarget as HTMLInputElement;
  const file = input.files?.[0];
  input.value = '';
  return file;
}
