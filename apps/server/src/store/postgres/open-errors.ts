/** Why start-up could not use the Postgres database as an Interthought event store. */
export type PostgresOpenErrorCode =
  /** The URL is not a postgres:// or postgresql:// URL pg can read, or an option is out of range. */
  | 'BAD_URL'
  /** No connection: the host is down or unreachable, the credentials or TLS are refused, the database is missing. */
  | 'UNREACHABLE'
  /** The database was migrated by a newer Interthought whose schema this build does not know. */
  | 'SCHEMA_TOO_NEW'
  /** A schema migration failed; the database was left at its previous version. */
  | 'MIGRATION_FAILED';

/**
 * Start-up refused to use the Postgres database. The message names INTERTHOUGHT_DATABASE_URL's
 * target (without its password) and says what to do; `cause` keeps the driver's error.
 */
export class PostgresOpenError extends Error {
  override readonly name = 'PostgresOpenError';
  constructor(
    readonly code: PostgresOpenErrorCode,
    /** The database URL with its password masked. */
    readonly target: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** The URL as it may be printed: the password (if any) masked. */
export function maskedUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, '$1:***@');
}
