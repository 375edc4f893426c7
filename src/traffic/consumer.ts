/**
 * The traffic queue's consumer: each message is one isolate's batch (./batch.ts), split by site
 * and merged by each site's `SiteTraffic` object. A site whose domain is no longer published, or
 * is claimed again since the batch was counted, is dropped. A message whose merge failed for any
 * of its sites is retried with backoff (the sites that merged it skip it then, by its id), and is
 * kept as a dead letter after its last retry; one site's failure holds back no other message.
 */
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { backoffSeconds } from '../platform/queue-limits';
import { currentClaims } from '../storage/site-claims';
import { bySite, isTrafficBatch } from './batch';
import { siteTraffic } from './site-traffic';

/** The first retry waits this long, each further one twice as long (max_retries in wrangler.toml: 5 s … 80 s). */
const firstRetrySeconds = 5;

export async function consumeTraffic(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      if (!isTrafficBatch(message.body)) {
        log.warn('A traffic message that is no batch was dropped', { id: message.id });
        return message.ack();
      }
      try {
        await mergeBatch(env, message.body);
        message.ack();
      } catch (error) {
        log.error('A traffic batch was not merged; it is retried', { id: message.id, attempts: message.attempts, error });
        message.retry({ delaySeconds: backoffSeconds(firstRetrySeconds, message.attempts) });
      }
    }),
  );
}

async function mergeBatch(env: Env, body: Parameters<typeof bySite>[0]): Promise<void> {
  const sites = bySite(body);
  const claims = await currentClaims(env.DB, [...sites.values()].map(({ site }) => site.domain));
  const merges = [...sites.values()]
    .filter(({ site }) => claims.get(site.domain) === site.claim)
    // Each site on its own: one that fails, even before its call is made, holds back none of the others.
    .map(async ({ site, entries, visitors }) => siteTraffic(env, site.domain).merge(site, body.id, entries, visitors));
  const failed = (await Promise.allSettled(merges)).find((merge) => merge.status === 'rejected');
  if (failed) throw failed.reason;
}
