import { type EventSourceMessage, createParser } from 'eventsource-parser';
import { authorized } from '../support/client';

type Waiter = { done: () => boolean; resolve: () => void };

/** Reads a `GET /v2/events` stream as an EventSource would, keeping every event, comment and byte. */
export class Subscriber {
  readonly events: EventSourceMessage[] = [];
  readonly comments: string[] = [];
  raw = '';
  #waiters: Waiter[] = [];
  #reader: ReadableStreamDefaultReader<string>;
  readonly ended: Promise<void>;

  constructor(readonly response: Response) {
    if (!response.body) throw new Error(`No stream: ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    this.#reader = reader;
    const parser = createParser({
      onEvent: (event) => this.events.push(event),
      onComment: (comment) => this.comments.push(comment),
    });
    this.ended = (async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        this.raw += chunk.value;
        parser.feed(chunk.value);
        this.#settle();
      }
    })().finally(() => this.#settle(true));
  }

  /** Events of the given domains (other tests may deploy at the same time). */
  of(domains: readonly string[]): EventSourceMessage[] {
    return this.events.filter((event) => domains.includes((JSON.parse(event.data) as { domain: string }).domain));
  }

  /** Resolves once `condition` holds; fails after `ms` or when the stream ends first. */
  until(condition: () => boolean, ms = 30_000): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms with ${this.events.length} events`)), ms);
      this.#waiters.push({
        done: condition,
        resolve: () => {
          clearTimeout(timer);
          if (condition()) resolve();
          else reject(new Error(`The stream ended with ${this.events.length} events`));
        },
      });
    });
  }

  lastId(): string {
    const last = this.events.at(-1);
    if (!last?.id) throw new Error('No event yet');
    return last.id;
  }

  async close(): Promise<void> {
    await this.#reader.cancel();
    await this.ended.catch(() => undefined);
  }

  #settle(ended = false): void {
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!ended && !waiter.done()) return true;
      waiter.resolve();
      return false;
    });
  }
}

/** Opens `GET /v2/events` with a `global_read` token. */
export async function subscribe(query = '', headers: HeadersInit = {}): Promise<Subscriber> {
  const response = await authorized(`/v2/events${query}`, { headers }, { scope: 'global_read' });
  if (response.status !== 200) throw new Error(`GET /v2/events answered ${response.status}: ${await response.text()}`);
  return new Subscriber(response);
}
