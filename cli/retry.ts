import pc from 'picocolors';
import { terminalSafe } from '../src/common/control-characters.ts';
import { CliError, UnreachableError } from './errors.ts';

/**
 * Requests that are safe to repeat (reads, and a finalize, which the service answers as done when
 * asked again: docs/api.md) are repeated when the connection is reset or a gateway answers
 * 502, 503 or 504: a flaky network or a proxy, which asking again cures. Blob uploads resume on
 * their own (src/common/incremental-deploy.ts), asking what is still missing.
 */
const resetCodes = new Set(['ECONNRESET', 'EPIPE']);
const gatewayStatuses = new Set([502, 503, 504]);

/** Tries in all, the first one included: about 1.75 s of waiting at most. */
export const maxTries = 4;
const delayMs = (failures: number) => 250 * 2 ** (failures - 1);

/** Why a failed request is worth repeating (`ECONNRESET`, `HTTP 503`), or undefined. */
export function retryReason(error: unknown): string | undefined {
  if (error instanceof UnreachableError) return error.code !== undefined && resetCodes.has(error.code) ? error.code : undefined;
  if (error instanceof CliError && error.status !== undefined && gatewayStatuses.has(error.status)) return `HTTP ${error.status}`;
  return undefined;
}

let announced = false;

/** Runs `attempt` until it succeeds, fails for a reason not worth repeating, or `maxTries` are spent; says why once per run, on standard error. */
export async function withRetries<T>(origin: string, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      const reason = retryReason(error);
      if (reason === undefined || tries >= maxTries) throw error;
      if (!announced) {
        announced = true;
        process.stderr.write(pc.yellow(`A request to ${terminalSafe(origin)} failed (${reason}); asking again (at most ${maxTries} tries).\n`));
      }
      await new Promise((resolve) => setTimeout(resolve, delayMs(tries)));
    }
  }
}
