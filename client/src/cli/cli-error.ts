// A failure the CLI reports as one line (no stack trace) before exiting with a non-zero code.
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
