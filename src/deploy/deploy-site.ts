import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import { type Deployer, asDeployer, authorize, refuseSuspendedUser } from '../coordinator/access/access';
import { checkClaimant } from '../coordinator/access/claimant';
import { type OnPurgePending, siteCoordinator, uploadRecord } from '../coordinator/coordinator-client';
import { newDeploymentId } from '../coordinator/records/deployment-id';
import type { DeployCommit } from '../coordinator/changes';
import { keys, writeFileIndex } from '../storage/file-index';
import { configuredRoot, readFromBucket, withSiteRules } from '../rules/deployment-rules';
import { PackWriter, packPartSize } from '../storage/pack-writer';
import type { DeploymentRecord } from '../storage/deployments-table';
import { siteAccess } from '../storage/members-table';
import type { DeployResult, DeploymentProvenance } from '../common/api-types';
import { discard, handOver } from './hand-over';
import { deployLimits } from '../content/deploy-limits';
import { isMultipartFormData, receiveDeploy } from './receive';
import { type StorageRoom, admitDeploy } from '../quotas/admission';
import { labelsOf, requestClient } from '../content/label-checks';
import type { StoredObject } from '../storage/usage-ledger';

/**
 * `PUT /v2/sites/<domain>`: streams the body into a new deployment under fresh keys, then has
 * the domain's coordinator switch the site to it in one step. Until that switch nothing a
 * reader sees has changed; when the upload fails or the coordinator refuses, the coordinator
 * deletes the new objects (./hand-over.ts). A `preview` is stored as a deployment and answered with it, nothing live changed.
 * A live deploy of what the site serves already makes no deployment (`unchanged`).
 */
export async function deploySite(
  env: Env,
  request: Request,
  domain: string,
  { userId, claims }: Deployer,
  provenance: DeploymentProvenance,
  preview = false,
  onPurgePending?: OnPurgePending,
): Promise<DeployResult | DeploymentRecord> {
  if (!isMultipartFormData(request)) {
    throw new Problem('unsupported-media-type', 'A deploy is sent as multipart/form-data.');
  }
  const { site: owner, member, suspension } = await siteAccess(env.DB, domain, userId);
  // A member's deploy counts against the owner's quotas.
  const admission = await admitDeploy(env, domain, owner?.userId ?? userId);
  return admission.run(async () => {
    // Checked again by the coordinator; refusing here spares the upload. A preview of a new domain claims it, as a deploy does.
    authorize(asDeployer(userId, claims), domain, owner, 'deploy', member);
    refuseSuspendedUser(userId, suspension);
    if (owner === null) await checkClaimant(env, domain, userId);
    admission.check();
    return store(env, request, { domain, userId, claims, provenance, preview, room: admission.room, reading: admission.reading, onPurgePending, liveRoot: owner?.root });
  });
}

/** The deploy's body into a pack and an index under fresh keys, then handed to the coordinator. */
async function store(
  env: Env,
  request: Request,
  {
    domain,
    userId,
    claims,
    provenance,
    preview,
    room,
    reading,
    onPurgePending,
    liveRoot,
  }: { domain: string; userId: string; claims: boolean; provenance: DeploymentProvenance; preview: boolean; room: StorageRoom; reading: () => void; onPurgePending?: OnPurgePending; liveRoot: unknown },
): Promise<DeployResult | DeploymentRecord> {
  const deploymentId = newDeploymentId();
  const now = Date.now();
  const pack = new PackWriter(env.FILES, keys.pack(domain, deploymentId), packPartSize, uploadRecord(env, domain));
  // Read while the body streams in; the coordinator checks at the commit that they are still kept.
  const stored = siteCoordinator(env, domain).storedBlobs(domain);
  stored.catch(() => {});
  reading();
  const received = await receiveDeploy(request, deployLimits(env), pack, now, stored, room);

  const ownPack: StoredObject[] = received.files?.packs.includes(pack.key) ? [{ key: pack.key, bytes: pack.stored }] : [];
  const written = ownPack.map((object) => object.key);
  let commit: DeployCommit;
  try {
    commit = { domain, userId, claims, configuration: received.configuration, labels: await labelsOf(domain, received.labels, requestClient(request), provenance) };
    if (received.files) {
      const indexKey = keys.index(domain, deploymentId);
      const { packs, blobs } = received.files;
      written.push(indexKey);
      // A `_redirects` or `_headers` of the root it will be served under that cannot be read refuses the deploy here, before its index is written.
      const rulesRoot = configuredRoot(received.configuration ?? { root: liveRoot });
      const index = await withSiteRules({ deploymentId, created: now, packs, files: received.files.entries }, readFromBucket(env.FILES), rulesRoot);
      const indexBytes = await writeFileIndex(env.FILES, indexKey, index);
      commit.files = {
        id: deploymentId,
        indexKey,
        packs,
        fileCount: received.files.entries.length,
        totalBytes: received.files.totalBytes,
        blobs,
        written: [...ownPack, { key: indexKey, bytes: indexBytes }],
        rulesRoot,
      };
    }
  } catch (error) {
    await discard(env, domain, written);
    throw error;
  }
  const coordinator = siteCoordinator(env, domain, onPurgePending);
  return handOver<DeployResult | DeploymentRecord>(env, domain, written, () => (preview ? coordinator.preview(commit) : coordinator.deploy(commit)));
}
