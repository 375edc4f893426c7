import { env } from 'cloudflare:workers';
import { afterAll, vi } from 'vitest';
import { databaseNowMs } from '../../src/storage/configurations-feed';

/**
 * Every workers file ends on the real clock. Files that run an alarm "as if a day had passed" fake
 * Date in the runtime, where the coordinators run too, and a change made meanwhile ticks the
 * database's one configurations clock to that Date (src/storage/sites-table.ts takes the later of
 * the Worker's and the database's clocks). The files after it share the runtime and its database
 * (vitest.config.ts, `isolate: false`): a clock left days ahead would stamp their changes days
 * ahead too, and no If-Modified-Since of theirs could be answered 304 until then.
 */
afterAll(async () => {
  vi.useRealTimers();
  await env.DB.prepare(`UPDATE clocks SET modified = min(modified, ${databaseNowMs}) WHERE name = 'configurations'`).run();
});
