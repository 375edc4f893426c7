/**
 * `sitehost configurations [--follow]`: every site's configuration record as JSON lines, then
 * (with --follow) every change as it happens: what an edge agent runs. The list is read a page at
 * a time and the first page's cursor is where the changes feed goes on from
 * (docs/api.md, "Following every configuration"); the event stream is the hint that the feed
 * holds more, and a poll every --interval seconds covers a stream that is down.
 */
import pc from 'picocolors';
import type { ConfigurationChanges, ConfigurationRecord } from '../../src/common/api-types.ts';
import { followEvents } from '../../src/common/event-stream.ts';
import type { ApiClient } from '../api.ts';
import { connect } from '../credentials.ts';
import { CliError } from '../errors.ts';

/** Records or changes asked for a page: the most the API answers at once. */
const pageSize = 1000;

export interface ConfigurationsOptions {
  follow?: boolean;
  since?: string;
  interval?: string;
  json?: boolean;
}

function printLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** The target of the answer's `Link: <…>; rel="next"`, as the API writes it. */
function nextPage(link: string | null): string | undefined {
  return /<([^>]*)>\s*;\s*rel="?next"?/.exec(link ?? '')?.[1];
}

/** Prints every record, a page at a time; answers the first page's cursor, which the feed goes on from. */
async function listAll(api: ApiClient): Promise<string> {
  let path: string | undefined = `/v2/configurations?limit=${pageSize}`;
  let cursor: string | undefined;
  while (path !== undefined) {
    const answer = await api.request(path);
    cursor ??= answer.headers.get('sitehost-cursor') ?? undefined;
    for (const record of (await answer.json()) as ConfigurationRecord[]) printLine(record);
    path = nextPage(answer.headers.get('link'));
  }
  if (cursor === undefined) throw new CliError('server', 'The service answered the list without a Sitehost-Cursor header: it predates the changes feed.');
  printLine({ cursor });
  return cursor;
}

/** Prints the changes after `cursor`, every page; answers the cursor to go on from. */
async function printChanges(api: ApiClient, cursor: string): Promise<string> {
  let path: string | undefined = `/v2/configurations?${new URLSearchParams({ since: cursor, limit: String(pageSize) })}`;
  let next = cursor;
  while (path !== undefined) {
    const answer = await api.request(path);
    const page = (await answer.json()) as ConfigurationChanges;
    for (const change of page.changes) printLine(change);
    if (page.changes.length > 0) printLine({ cursor: page.cursor });
    next = page.cursor;
    path = nextPage(answer.headers.get('link'));
  }
  return next;
}

/** Wakes the follower when an event arrives (the feed may hold more), or when the poll interval is over. */
class Hints {
  #pending = false;
  #wake: (() => void) | undefined;

  hint(): void {
    this.#pending = true;
    this.#wake?.();
  }

  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        this.#pending = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
      if (this.#pending) done();
    });
  }
}

/**
 * Hints at every event of `GET /v2/events` until `signal` ends it, and whenever the stream opens:
 * a change made before it was open (after the list, or while it was down) sent no event this
 * follower saw. A stream that cannot be followed leaves the poll alone.
 */
async function hintAtEvents(api: ApiClient, hints: Hints, signal: AbortSignal): Promise<void> {
  try {
    const onOpen = () => hints.hint();
    for await (const _ of followEvents((headers, abort) => api.stream('/v2/events', headers, abort), { signal, onOpen })) hints.hint();
  } catch (error) {
    console.error(pc.yellow(`The event stream cannot be followed (${error instanceof Error ? error.message : String(error)}); polling instead.`));
  }
}

function intervalMs(interval: string | undefined): number {
  const seconds = Number(interval ?? '30');
  if (!Number.isFinite(seconds) || seconds <= 0) throw new CliError('usage', '--interval is a number of seconds above 0.');
  return seconds * 1000;
}

export async function configurationsCommand(options: ConfigurationsOptions): Promise<void> {
  const pollMs = intervalMs(options.interval);
  const api = await connect();
  let cursor = options.since ?? (await listAll(api));
  if (!options.follow) {
    if (options.since !== undefined) await printChanges(api, cursor);
    return;
  }
  const hints = new Hints();
  const stop = new AbortController();
  const events = hintAtEvents(api, hints, stop.signal);
  try {
    for (;;) {
      try {
        cursor = await printChanges(api, cursor);
      } catch (error) {
        // Changes after the cursor were forgotten: the list is the state again.
        if (!(error instanceof CliError && error.status === 410)) throw error;
        console.error(pc.yellow('The changes after the cursor are no longer kept; listing every configuration again.'));
        cursor = await listAll(api);
      }
      await hints.next(pollMs);
    }
  } finally {
    stop.abort();
    await events;
  }
}
