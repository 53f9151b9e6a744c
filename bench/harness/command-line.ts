// The command-line frame shared by `pnpm bench` and `pnpm chaos`: a usage error exits 2 with its
// message alone, any other failure exits 1 with its stack, and the run's own code otherwise.

/** A command line the tool cannot run; the message says how to call it. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Whether the error is the caller's: a `UsageError`, or `parseArgs` refusing an option. */
function isUsageError(error: unknown): error is Error {
  return error instanceof UsageError || (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
}

/** Run `main` and set the process's exit code from what it returns or throws. */
export function runCommand(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      if (isUsageError(error)) {
        process.stderr.write(`${error.message}\n`);
        process.exitCode = 2;
        return;
      }
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
