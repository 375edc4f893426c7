import type { LoggedEvent } from './event';
import { sseFrame, sseKeepAlive } from './wire';

/** What a subscriber's stream reads: the durable log, and a signal when it grows. */
export interface LogReader {
  after(cursor: number, limit: number): LoggedEvent[];
  horizon(): number;
  /** Resolves at the next append. */
  appended(): Promise<void>;
}

/** Events per chunk: large enough to catch up quickly, small enough to bound a subscriber's memory. */
const pageSize = 100;

const encoder = new TextEncoder();

/**
 * A subscriber's Server-Sent Events stream, starting after `cursor`. The stream reads the log
 * only when its consumer asks for more (high-water mark 0), so each subscriber holds at most
 * one page in memory and a slow one simply reads later: it never holds up the producer or
 * the other subscribers, and it needs no buffer of its own that could overflow. Should it fall
 * behind the retained history, the stream ends; its reconnection is answered 410.
 */
export function sseStream(log: LogReader, cursor: number, keepAliveMs: number): ReadableStream<Uint8Array> {
  let position = cursor;
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (!cancelled) {
          if (position < log.horizon()) return controller.close();
          const page = log.after(position, pageSize);
          const last = page.at(-1);
          if (last) {
            position = last.id;
            return controller.enqueue(encoder.encode(page.map(sseFrame).join('')));
          }
          if (!(await appendedWithin(log, keepAliveMs)) && !cancelled) return controller.enqueue(encoder.encode(sseKeepAlive));
        }
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
}

/** True at the next append, false when `ms` pass first. */
async function appendedWithin(log: LogReader, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([log.appended().then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
