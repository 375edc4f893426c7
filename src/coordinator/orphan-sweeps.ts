/**
 * The daily sweep (the Cron Trigger): asks the coordinator of every domain under which an object
 * was written lately to sweep its prefix (./orphans.ts). The domains are found in the bucket, not
 * in D1: a domain whose first deploy was cut has no site row. Only an object written lately can
 * be an orphan no sweep has seen, so the window is two days past the grace: every object is looked
 * at by two daily runs once it is old enough, and one missed run loses nothing. A sweep deletes
 * every orphan of its site, old ones included.
 */
import type { Env } from '../platform/env';
import { log } from '../platform/log';
import { settingsOf } from '../platform/settings';
import { keys } from '../storage/file-index';
import { listObjects } from '../storage/objects';
import { siteCoordinator } from './coordinator-client';

const dayMs = 86_400_000;
/** Sweeps running at once: a Worker invocation keeps six connections open at most. */
const concurrentSweeps = 6;

/** Domains under which an object was uploaded at `since` (ms) or later. */
async function domainsWrittenSince(bucket: R2Bucket, since: number): Promise<string[]> {
  const domains = new Set<string>();
  for await (const page of listObjects(bucket, keys.sites)) {
    for (const object of page) {
      const domain = keys.siteOf(object.key);
      if (domain !== undefined && object.uploaded.getTime() >= since) domains.add(domain);
    }
  }
  return [...domains];
}

/** Sweeps every domain written under within the window; answers the domains it asked. One that fails is logged, and left to a later run. */
export async function sweepOrphanedObjects(controller: ScheduledController, env: Env): Promise<string[]> {
  const windowMs = 2 * dayMs + settingsOf(env).orphanSweepGraceSeconds * 1000;
  const domains = await domainsWrittenSince(env.FILES, controller.scheduledTime - windowMs);
  const waiting = [...domains];
  let deleted = 0;
  await Promise.all(
    Array.from({ length: concurrentSweeps }, async () => {
      for (let domain = waiting.shift(); domain !== undefined; domain = waiting.shift()) {
        try {
          deleted += (await siteCoordinator(env, domain).sweepOrphans(domain)).length;
        } catch (error) {
          log.error('Sweeping a site for objects nothing holds failed; a later run tries again', { domain, error });
        }
      }
    }),
  );
  log.info('Swept sites for objects nothing holds', { sites: domains.length, deleted });
  return domains;
}
