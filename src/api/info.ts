import { type Context, Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope, requireSiteRead } from '../auth/middleware';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { purgeNotice } from './purge-notice';
import type { Edit } from '../coordinator/changes';
import type { SiteMetadata } from '../content/metadata';
import { readJsonBody } from '../http/json-body';
import { isObject } from '../http/merge-patch';
import { Problem } from '../http/problem';
import type { SiteInfo } from '../common/api-types';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { getCertificateSummary } from '../storage/certificates';
import type { SiteRecord } from '../storage/sites-table';
import { domainParam } from './domain-param';
import { readableSite } from './site-access';
import { suspensionView } from './operators';

export const info = new Hono<AppEnv>();

async function siteInfo(c: Context<AppEnv>, site: SiteRecord): Promise<SiteInfo> {
  const { deployment } = site;
  return {
    domain: site.domain,
    userId: site.userId,
    created: timestamp(site.created),
    modified: timestamp(site.modified),
    deployment: deployment && {
      id: deployment.id,
      created: timestamp(deployment.created),
      fileCount: deployment.fileCount,
      totalBytes: deployment.totalBytes,
    },
    certificate: await getCertificateSummary(c.env.DB, site.domain, c.env.CERT_ISSUER),
    metadata: site.metadata,
    suspension: site.suspension && suspensionView(site.suspension),
    userSuspension: site.userSuspension ? suspensionView(site.userSuspension) : null,
  };
}

/** Only `metadata` is writable; any other member of the body is a read-only field. */
function metadataEdit(body: unknown, kind: 'replace' | 'patch'): Edit<SiteMetadata> {
  if (!isObject(body)) throw new Problem('invalid-request', 'The body must be a JSON object like {"metadata": {...}}.');
  const readOnly = Object.keys(body).filter((name) => name !== 'metadata');
  if (readOnly.length > 0) {
    throw new Problem('invalid-request', `Only metadata can be written; ${readOnly.join(', ')} ${readOnly.length > 1 ? 'are' : 'is'} read-only.`, {
      errors: readOnly.map((name) => ({ pointer: `/${name}`, message: 'is read-only' })),
    });
  }
  // Replacing, or patching metadata with null (removing it), leaves the empty metadata object.
  if (kind === 'replace' || body.metadata === null) return { replace: (body.metadata ?? {}) as SiteMetadata };
  return { patch: body.metadata ?? {} };
}

const writeInfo = (kind: 'replace' | 'patch', mediaType: string) => [
  requireScope('deploy'),
  async (c: Context<AppEnv>) => {
    const domain = domainParam(c);
    const edit = metadataEdit(await readJsonBody(c.req.raw, mediaType), kind);
    const site = await siteCoordinator(c.env, domain, purgeNotice(c)).editMetadata(domain, c.get('principal').userId, edit);
    return c.json(await siteInfo(c, site));
  },
] as const;

resource(info, '/v2/sites/:domain/info', {
  GET: [
    requireSiteRead(),
    async (c) => c.json(await siteInfo(c, await readableSite(c, domainParam(c)))),
  ],
  PUT: [...writeInfo('replace', 'application/json')],
  PATCH: [...writeInfo('patch', 'application/merge-patch+json')],
});
