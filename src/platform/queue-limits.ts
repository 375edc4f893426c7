/** Cloudflare Queues' limits, which every producer and consumer here must respect. */

/** Messages one `sendBatch` call takes at most. */
export const maxBatchMessages = 100;

/** The longest delay `retry({ delaySeconds })` accepts: 12 hours. */
const maxRetryDelaySeconds = 12 * 60 * 60;

/** Exponential backoff: `firstSeconds` after the first attempt, doubling with each further one, capped at what a queue accepts. */
export function backoffSeconds(firstSeconds: number, attempts: number): number {
  return Math.min(firstSeconds * 2 ** Math.max(0, attempts - 1), maxRetryDelaySeconds);
}
