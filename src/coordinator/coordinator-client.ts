/**
 * The Worker's side of a domain's coordinator: a typed client whose changes answer their value
 * or throw their Problem, so no route sees an `Outcome` and no change can forget to unwrap one.
 */
import type { Env } from '../platform/env';
import type { UploadRecord } from '../storage/pack-writer';
import type { SiteCoordinator } from './coordinator';
import { type Outcome, unwrap } from './outcome';

/** The coordinator's changes: each answers an `Outcome` across RPC, turned back here. */
const changes = ['deploy', 'preview', 'activate', 'addBlobs', 'finalize', 'deployManifest', 'cancel', 'unpublish', 'editConfiguration', 'editMetadata', 'putFile', 'deleteFile', 'suspend', 'resume', 'refreshOwner', 'changeAccess', 'storeUploading', 'protect'] as const;
type Change = (typeof changes)[number];
/** Its other methods, whose answers pass as they are. */
type Query = 'current' | 'beginUpload' | 'forgetUpload' | 'beginIncremental' | 'sweepOrphans' | 'discard' | 'replayDeadLetters' | 'reconcile' | 'knownBlobs' | 'storedBlobs' | 'deployments' | 'deployment' | 'aliased';

/** A change's signature with its `Outcome` unwrapped; `never` (a type error below) for one that answers none. */
type Unwrapped<F> = F extends (...args: infer A) => Promise<Outcome<infer R>> ? (...args: A) => Promise<R> : never;

export type SiteCoordinatorClient = { [K in Change]: Unwrapped<SiteCoordinator[K]> } & Pick<SiteCoordinator, Query>;

/** Told when a change answered with its purge not yet accepted by Cloudflare, so that the response says so (src/api/purge-notice.ts). */
export type OnPurgePending = () => void;

/** The coordinator of `domain`. Workers' stub typing cannot map `unknown`-valued records, so the stub is typed by the class. */
export function siteCoordinator(env: Env, domain: string, onPurgePending?: OnPurgePending): SiteCoordinatorClient {
  const stub = env.SITES.get(env.SITES.idFromName(domain)) as unknown as Pick<SiteCoordinator, Change | Query>;
  const call = stub as unknown as Record<Change, (...args: unknown[]) => Promise<Outcome<unknown>>>;
  const client: Record<string, unknown> = {
    current: (...args: Parameters<SiteCoordinator['current']>) => stub.current(...args),
    beginUpload: (...args: Parameters<SiteCoordinator['beginUpload']>) => stub.beginUpload(...args),
    forgetUpload: (...args: Parameters<SiteCoordinator['forgetUpload']>) => stub.forgetUpload(...args),
    beginIncremental: (...args: Parameters<SiteCoordinator['beginIncremental']>) => stub.beginIncremental(...args),
    sweepOrphans: (...args: Parameters<SiteCoordinator['sweepOrphans']>) => stub.sweepOrphans(...args),
    discard: (...args: Parameters<SiteCoordinator['discard']>) => stub.discard(...args),
    replayDeadLetters: (...args: Parameters<SiteCoordinator['replayDeadLetters']>) => stub.replayDeadLetters(...args),
    reconcile: (...args: Parameters<SiteCoordinator['reconcile']>) => stub.reconcile(...args),
    knownBlobs: (...args: Parameters<SiteCoordinator['knownBlobs']>) => stub.knownBlobs(...args),
    storedBlobs: (...args: Parameters<SiteCoordinator['storedBlobs']>) => stub.storedBlobs(...args),
    deployments: (...args: Parameters<SiteCoordinator['deployments']>) => stub.deployments(...args),
    deployment: (...args: Parameters<SiteCoordinator['deployment']>) => stub.deployment(...args),
    aliased: (...args: Parameters<SiteCoordinator['aliased']>) => stub.aliased(...args),
  };
  for (const change of changes) {
    client[change] = async (...args: unknown[]) => {
      const outcome = await call[change](...args);
      if (outcome.ok && outcome.purgePending) onPurgePending?.();
      return unwrap(outcome);
    };
  }
  return client as SiteCoordinatorClient;
}

/** Records the multipart uploads of `domain`'s packs with its coordinator, which aborts those a crash cut off. */
export function uploadRecord(env: Env, domain: string): UploadRecord {
  const coordinator = siteCoordinator(env, domain);
  return {
    begun: (key, uploadId) => coordinator.beginUpload(domain, key, uploadId),
    aborted: (key) => coordinator.forgetUpload(key),
  };
}
