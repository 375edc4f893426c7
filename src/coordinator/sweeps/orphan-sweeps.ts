/**
 * The daily sweep (the Cron Trigger): asks the coordinator of every domain under which an object
 * was written lately to sweep its prefix (./orphans.ts). The domains are found in the bucket, not
 * in D1: a domain whose first deploy was cut has no site row.
 *
 * The bucket is listed as one scan that runs across cron runs: each run lists at most
 * `listsPerRun` pages from where the last one stopped (kept in D1, `bucket_scans`) and asks at most
 * about `domainsPerRun` domains, so a run's work is bounded whatever the bucket holds; a scan that
 * reaches the end starts again at the next run. An object counts as lately written when it is
 * younger than two days past the grace, or than the start of the scan two scans back, whichever
 * is older: every object is then seen by two scans once it is old enough, however many days a scan
 * takes, and one missed run loses nothing. A sweep deletes every orphan of its site, old ones included.
 */
import type { Env } from '../../platform/env';
import { log } from '../../platform/log';
import { settingsOf } from '../../platform/settings';
import { type BucketScan, readBucketScan, writeBucketScan } from '../../storage/bucket-scans';
import { hostedDeployments } from '../../storage/deployment-hosts';
import { keys } from '../../storage/file-index';
import { siteCoordinator } from '../coordinator-client';

const dayMs = 86_400_000;
/** Sweeps running at once: a Worker invocation keeps six connections open at most. */
const concurrentSweeps = 6;
const scanName = 'orphans';

/** How much one run does at most. */
export interface SweepBounds {
  /** Keys per list call (R2 lists 1,000 at most). */
  keysPerList: number;
  listsPerRun: number;
  /** Domains asked to sweep; the page that reaches it is finished. */
  domainsPerRun: number;
}

/** 500,000 keys listed (about a minute) and 2,000 sweeps (six at a time) a run: well within a cron's 15 minutes. */
const defaultBounds: SweepBounds = { keysPerList: 1000, listsPerRun: 500, domainsPerRun: 2000 };

/** Lists the next stretch of the scan: the domains under which an object was written at `since` or later, and where the scan stands after it. */
async function scanStretch(bucket: R2Bucket, scan: BucketScan, since: number, bounds: SweepBounds): Promise<{ domains: string[]; scan: BucketScan }> {
  const domains = new Set<string>();
  let after = scan.after;
  for (let list = 0; list < bounds.listsPerRun && domains.size < bounds.domainsPerRun; list++) {
    const listing = await bucket.list({ prefix: keys.sites, limit: bounds.keysPerList, ...(after === null ? {} : { startAfter: after }) });
    for (const object of listing.objects) {
      const domain = keys.siteOf(object.key);
      if (domain !== undefined && object.uploaded.getTime() >= since) domains.add(domain);
    }
    after = listing.objects.at(-1)?.key ?? after;
    if (!listing.truncated) {
      after = null;
      break;
    }
  }
  return { domains: [...domains], scan: { ...scan, after } };
}

/** Sweeps the domains written under in the next stretch of the scan; answers the domains it asked. One that fails is logged, and left to a later scan. */
export async function sweepOrphanedObjects(controller: ScheduledController, env: Env, bounds = defaultBounds): Promise<string[]> {
  const now = controller.scheduledTime;
  const stored = await readBucketScan(env.DB, scanName);
  // A scan that ended last run: a new one begins here.
  const scan = stored.after === null ? { after: null, started: now, previousStarted: stored.started, earlierStarted: stored.previousStarted } : stored;
  const since = Math.min(now - 2 * dayMs - settingsOf(env).orphanSweepGraceSeconds * 1000, scan.earlierStarted);
  const stretch = await scanStretch(env.FILES, scan, since, bounds);
  await writeBucketScan(env.DB, scanName, stretch.scan);
  // Read before the sweeps, once: a deployment that enters the directory later is its coordinator's already.
  const hosted = await hostedDeployments(env.DB, stretch.domains);
  const waiting = [...stretch.domains];
  let deleted = 0;
  await Promise.all(
    Array.from({ length: concurrentSweeps }, async () => {
      for (let domain = waiting.shift(); domain !== undefined; domain = waiting.shift()) {
        try {
          deleted += (await siteCoordinator(env, domain).sweepOrphans(domain, hosted.get(domain) ?? [])).length;
        } catch (error) {
          log.error('Sweeping a site for objects nothing holds failed; a later run tries again', { domain, error });
        }
      }
    }),
  );
  log.info('Swept sites for objects nothing holds', { sites: stretch.domains.length, deleted, scanEnded: stretch.scan.after === null });
  return stretch.domains;
}
