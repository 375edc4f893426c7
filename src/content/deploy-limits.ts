import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import { settingsOf } from '../platform/settings';

/** The deploy limits, from wrangler.toml's vars. */
export interface DeployLimits {
  maxFiles: number;
  maxTotalBytes: number;
  maxFileBytes: number;
}

/** Each limit's var, which a 413 names. */
const limitNames = { maxFiles: 'MAX_FILES', maxTotalBytes: 'MAX_TOTAL_BYTES', maxFileBytes: 'MAX_FILE_BYTES' } as const;

export function deployLimits(env: Env): DeployLimits {
  const { maxFiles, maxTotalBytes, maxFileBytes } = settingsOf(env);
  return { maxFiles, maxTotalBytes, maxFileBytes };
}

/**
 * 413 naming MAX_TOTAL_BYTES, before the body is read, for a Content-Length over `largest`: the
 * most that `kind` within the limits can be, so that reading would refuse it anyway.
 */
export function checkContentLength(request: Request, limits: DeployLimits, largest: number, kind: string): void {
  const length = Number(request.headers.get('content-length') ?? 0);
  if (length > largest) {
    throw limitExceeded(limits, 'maxTotalBytes', `The body's Content-Length is ${length} bytes, more than the ${largest} bytes ${kind} within the limits can be`);
  }
}

/** The 413 for an exceeded limit: `what` happened, and which limit with which value forbids it. */
export function limitExceeded(limits: DeployLimits, limit: keyof DeployLimits, what: string): Problem {
  const value = limits[limit];
  return new Problem('payload-too-large', `${what} (${limitNames[limit]} is ${value}).`, {
    extensions: { limit: limitNames[limit], value },
  });
}
