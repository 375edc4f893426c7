/**
 * Every failure the CLI reports is a `CliError` of one kind; the kind decides the exit code,
 * so scripts can tell "fix your command" from "log in again" from "try again later".
 */
export const exitCodes = {
  /** Anything else, e.g. a local file that cannot be read. */
  failure: 1,
  /** Bad arguments or input the CLI itself finds. */
  usage: 2,
  /** Missing or rejected token (401), or a token without the needed scope (403 insufficient_scope). */
  auth: 3,
  /** The site, file or path does not exist (404). */
  'not-found': 4,
  /** The site belongs to another user, is suspended, or the domain's proof of control is missing (403), or the request conflicts with the current state (409, 412). */
  conflict: 5,
  /** The server failed (5xx), could not be reached, or refuses too many requests (429). */
  server: 6,
  /** The server refused what was sent as invalid (400, 413, 415): a bad `_redirects` line, a configuration, a file too large. */
  refused: 7,
} as const;

export type ErrorKind = keyof typeof exitCodes;

/** Each kind's title, for the JSON problem `--json` prints of an error the CLI itself found. */
export const kindTitles: Record<ErrorKind, string> = {
  failure: 'Failed',
  usage: 'Invalid usage',
  auth: 'Not authenticated',
  'not-found': 'Not found',
  conflict: 'Conflict',
  server: 'Service failing or unreachable',
  refused: 'Refused by the service',
};

export interface CliErrorOptions extends ErrorOptions {
  /** The HTTP status, when the error is the server's answer. */
  status?: number;
}

export class CliError extends Error {
  readonly kind: ErrorKind;
  readonly status: number | undefined;

  constructor(kind: ErrorKind, message: string, options: CliErrorOptions = {}) {
    super(message, options);
    this.name = 'CliError';
    this.kind = kind;
    this.status = options.status;
  }

  get exitCode(): number {
    return exitCodes[this.kind];
  }
}

/** The service could not be reached, or the connection failed before its answer came: `code` is the system's (`ECONNRESET`), if any. */
export class UnreachableError extends CliError {
  readonly code: string | undefined;

  constructor(message: string, code: string | undefined, options: CliErrorOptions = {}) {
    super('server', message, options);
    this.name = 'UnreachableError';
    this.code = code;
  }
}

/** The exit codes as `sitehost --help` and docs/cli.md list them. */
export const exitCodeHelp = `Exit codes:
  0  success
  1  other failure (e.g. a local file cannot be read)
  2  usage: bad arguments or input, found by the CLI before asking the service
  3  auth: not logged in, token rejected (401) or missing a scope (403 insufficient_scope)
  4  not found: no such site or file (404)
  5  conflict/forbidden: the site belongs to another user, is suspended, or the domain is not proven yours (403), or a conflict (409, 412)
  6  server or network: the server failed (5xx), could not be reached, or refuses too many requests (429)
  7  refused: the server refused what was sent as invalid (400, 413, 415), e.g. a bad _redirects line`;
