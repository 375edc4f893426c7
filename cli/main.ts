import { CommanderError } from 'commander';
import { terminalSafe } from '../src/common/control-characters.ts';
import pc from 'picocolors';
import { ApiError } from '../src/common/received-problem.ts';
import { CliError, type ErrorKind, exitCodes, kindTitles } from './errors.ts';
import { createProgram } from './program.ts';

/**
 * Runs the CLI and sets the exit code: 0, or the code of the failure's kind (see errors.ts).
 * Failures print one line, or with `--json` one RFC 9457 problem as JSON, on standard error;
 * stack traces only with --debug.
 */
export async function main(argv: readonly string[]): Promise<void> {
  const json = wantsJson(argv);
  const program = createProgram(json);
  try {
    // Asked of the program, not of a command: it asks the service too, which commander's own --version cannot.
    if (asksVersion(argv)) return await (await import('./commands/version.ts')).showVersion({ json });
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    process.exitCode = report(error, program.opts<{ debug?: boolean }>().debug === true, json);
  }
}

/** `sitehost --version` (or `-V`), with at most `--json` and `--debug` beside it. */
function asksVersion(argv: readonly string[]): boolean {
  const rest = argv.filter((argument) => argument !== '--json' && argument !== '--debug');
  return rest.length === 1 && (rest[0] === '--version' || rest[0] === '-V');
}

/** `--json` among the options (not after `--`): errors too are then JSON, usage errors included, which commander raises before it knows the options. */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

function report(error: unknown, debug: boolean, json: boolean): number {
  if (error instanceof CommanderError) {
    // Commander printed the message or the help already (not with --json); --help and --version end with code 0.
    if (error.exitCode === 0) return 0;
    if (json) printProblem('usage', error.message.replace(/^error: /, ''));
    return exitCodes.usage;
  }
  if (debug) console.error(error);
  if (error instanceof CliError) {
    if (json) printProblem(error.kind, error.message, error.cause instanceof ApiError ? error.cause : undefined);
    // The message carries the server's problem detail: another person's text may reach it (a suspension's reason).
    else if (!debug) console.error(pc.red(`Error: ${terminalSafe(error.message)}`));
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (json) printProblem('failure', message);
  else if (!debug) console.error(pc.red(`Unexpected error: ${terminalSafe(message)} (run with --debug for details)`));
  return exitCodes.failure;
}

/**
 * The error as an RFC 9457 problem on standard error, with the exit code: the service's own
 * problem (its type, title, status, detail, errors and extensions) when it answered one, else a
 * problem of the CLI's, typed `urn:sitehost:cli:<kind>`.
 */
function printProblem(kind: ErrorKind, detail: string, answer?: ApiError): void {
  const problem = answer
    ? { type: answer.problem.type ?? 'about:blank', title: answer.problem.title, status: answer.status, detail: answer.problem.detail ?? detail, ...answer.problem.extensions, ...(answer.problem.errors ? { errors: answer.problem.errors } : {}) }
    : { type: `urn:sitehost:cli:${kind}`, title: kindTitles[kind], detail };
  process.stderr.write(`${terminalSafe(JSON.stringify({ ...problem, exitCode: exitCodes[kind] }))}\n`);
}
