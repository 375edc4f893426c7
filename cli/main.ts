import { CommanderError } from 'commander';
import pc from 'picocolors';
import { CliError, exitCodes } from './errors.ts';
import { createProgram } from './program.ts';

/**
 * Runs the CLI and sets the exit code: 0, or the code of the failure's kind (see errors.ts).
 * Failures print one line; stack traces only with --debug.
 */
export async function main(argv: readonly string[]): Promise<void> {
  const program = createProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    process.exitCode = report(error, program.opts<{ debug?: boolean }>().debug === true);
  }
}

function report(error: unknown, debug: boolean): number {
  if (error instanceof CommanderError) {
    // Commander printed the message or the help already; --help and --version end with code 0.
    return error.exitCode === 0 ? 0 : exitCodes.usage;
  }
  if (debug) console.error(error);
  if (error instanceof CliError) {
    if (!debug) console.error(pc.red(`Error: ${error.message}`));
    return error.exitCode;
  }
  if (!debug) console.error(pc.red(`Unexpected error: ${error instanceof Error ? error.message : String(error)} (run with --debug for details)`));
  return exitCodes.failure;
}
