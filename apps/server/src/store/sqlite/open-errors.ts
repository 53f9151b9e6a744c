/** Why a database file could not be opened as an Interthought event store. */
export type StoreOpenErrorCode =
  /** Another Interthought server (or another store in this process) holds the file. */
  | 'IN_USE'
  /** The file exists but is not a SQLite database. */
  | 'NOT_A_DATABASE'
  /** The path is a directory, unreadable, or its folder cannot be created. */
  | 'CANNOT_OPEN'
  /** The file was written by a newer Interthought whose schema this build does not know. */
  | 'SCHEMA_TOO_NEW'
  /** A schema migration failed; the file was left at its previous version. */
  | 'MIGRATION_FAILED'
  /** The options passed to `openSqliteEventStore` are out of range. */
  | 'BAD_OPTIONS';

/**
 * Start-up refused to use a database file. The message names the path and says what to do;
 * `cause` keeps the underlying SQLite or file-system error.
 */
export class StoreOpenError extends Error {
  override readonly name = 'StoreOpenError';
  /** The pid of the process holding the file, for `IN_USE` when it is known. */
  readonly holderPid: number | undefined;
  constructor(
    readonly code: StoreOpenErrorCode,
    readonly path: string,
    message: string,
    options?: { cause?: unknown; holderPid?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.holderPid = options?.holderPid;
  }
}
