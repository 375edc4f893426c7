import type { Env } from '../env';

/** The deploy limits, from wrangler.toml's vars. */
export interface DeployLimits {
  maxFiles: number;
  maxTotalBytes: number;
  maxFileBytes: number;
}

export function deployLimits(env: Env): DeployLimits {
  return {
    maxFiles: Number(env.MAX_FILES),
    maxTotalBytes: Number(env.MAX_TOTAL_BYTES),
    maxFileBytes: Number(env.MAX_FILE_BYTES),
  };
}
