import { base64url } from 'jose';
import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import { asDeployer, authorize, refuseSuspendedUser } from '../coordinator/access/access';
import { type OnPurgePending, siteCoordinator, uploadRecord } from '../coordinator/coordinator-client';
import type { FileUpload } from '../coordinator/changes';
import { checkFileSize } from '../content/file-rules';
import { type FileEntry, keys } from '../storage/file-index';
import { PackWriter, packPartSize } from '../storage/pack-writer';
import { siteAccess } from '../storage/members-table';
import { contentTypeOf } from '../content/content-type';
import { handOver } from './hand-over';
import { deployLimits } from '../content/deploy-limits';
import { requestClient } from '../content/label-checks';

/**
 * `PUT /v2/sites/<domain>/files/<path>`: streams the raw body into its own pack, hashing it on
 * the way, then has the coordinator make a new deployment of the live files plus this one.
 */
export async function uploadFile(
  env: Env,
  request: Request,
  domain: string,
  path: string,
  userId: string,
  onPurgePending?: OnPurgePending,
): Promise<{ created: boolean; entry: FileEntry }> {
  const declaredType = request.headers.get('content-type') ?? undefined;
  if (declaredType && /^multipart\/form-data\b/i.test(declaredType)) {
    throw new Problem('unsupported-media-type', 'The body of a file upload is the file itself; deploy forms go to PUT /v2/sites/<domain>.');
  }
  // Checked again by the coordinator; refusing here spares the upload.
  const { site, member, suspension } = await siteAccess(env.DB, domain, userId);
  authorize(asDeployer(userId), domain, site, 'change', member);
  refuseSuspendedUser(userId, suspension);

  const limits = deployLimits(env);
  checkFileSize(limits, Number(request.headers.get('content-length') ?? 0));

  const pack = new PackWriter(env.FILES, keys.pack(domain, crypto.randomUUID()), packPartSize, uploadRecord(env, domain));
  const digest = new crypto.DigestStream('SHA-256');
  const hasher = digest.getWriter();
  let size = 0;
  let written = false;
  try {
    for await (const chunk of request.body ?? []) {
      size += chunk.byteLength;
      checkFileSize(limits, size);
      await Promise.all([pack.append(chunk), hasher.write(chunk)]);
    }
    await hasher.close();
    written = await pack.finish();
  } catch (error) {
    await pack.abort();
    throw error;
  }

  const upload: FileUpload = {
    entry: {
      path,
      offset: 0,
      size,
      hash: base64url.encode(new Uint8Array(await digest.digest)),
      contentType: contentTypeOf(path, declaredType?.split(';')[0]?.trim()),
      modified: Date.now(),
    },
    packKey: written ? pack.key : null,
  };
  return handOver(env, domain, written ? [pack.key] : [], () => siteCoordinator(env, domain, onPurgePending).putFile(domain, userId, upload, requestClient(request)));
}
