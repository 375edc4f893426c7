import { type Context, Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope, requireSiteRead } from '../auth/middleware';
import { provenanceOf } from '../auth/tokens';
import { beginIncremental, stillMissing, uploadBlobs } from '../deploy/incremental';
import { readJsonBody } from '../http/json-body';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { settingsOf } from '../platform/settings';
import type { DeployResult, Deployment, DeploymentPage } from '../common/api-types';
import { deploymentNotFound } from '../coordinator/access/access';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { unchangedResult } from '../coordinator/deploys/unchanged';
import { purgeNotice } from './purge-notice';
import { isDeploymentId } from '../coordinator/records/deployment-id';
import type { DeploymentRecord, DeploymentsCursor } from '../storage/deployments-table';
import { domainParam } from './domain-param';
import { authorizeRead, deployerOf, readableSite } from './site-access';

export const deployments = new Hono<AppEnv>();

const pageSize = 20;

/** The host under the preview host whose first label is `label` (a deployment's id, an alias's label), with the request's scheme and port. */
function previewHost(c: Context<AppEnv>, label: string): string {
  const url = new URL(c.req.url);
  return `${url.protocol}//${label}.${settingsOf(c.env).previewHostname}${url.port ? `:${url.port}` : ''}/`;
}

/**
 * The answer of a change that went live: the deploy result, byte for byte its `site-deploy`
 * event, and the live deployment's preview URL in `Link: <…>; rel="preview"` (RFC 6903), which
 * the result cannot hold: an event has no request whose scheme and port a URL would take.
 */
export function deployAnswer(c: Context<AppEnv>, result: DeployResult, headers: Record<string, string> = {}): Response {
  return c.json(result, 200, { ...headers, link: `<${previewHost(c, result.deploymentId)}>; rel="preview"` });
}

/** `record` as the API shows it; `missing` while it uploads. Its preview and alias hosts keep the request's scheme and port. */
export function deploymentView(c: Context<AppEnv>, record: DeploymentRecord, liveId: string | null, missing?: string[]): Deployment {
  const previewUrl = (label: string) => previewHost(c, label);
  return {
    id: record.id,
    live: record.id === liveId,
    createdAt: timestamp(record.created),
    createdBy: record.createdBy,
    fileCount: record.fileCount,
    totalBytes: record.totalBytes,
    source: record.source,
    previewUrl: previewUrl(record.id),
    liveUntil: record.id === liveId || record.liveUntil === null ? null : timestamp(record.liveUntil),
    preview: record.preview,
    message: record.message,
    client: record.client,
    alias: record.alias,
    aliasUrl: record.aliasLabel === null ? null : previewUrl(record.aliasLabel),
    provenance: record.provenance ?? null,
    state: record.state,
    ...(record.state === 'uploading' ? { missing: missing ?? [] } : {}),
  };
}

export function deploymentIdParam(c: Context<AppEnv>, domain: string): string {
  const id = c.req.param('id') ?? '';
  if (!isDeploymentId(id)) throw deploymentNotFound(domain, id);
  return id;
}

/** A cursor is the creation time and id of the last deployment of the previous page. */
function cursorOf(record: DeploymentRecord): string {
  return `${record.created}-${record.id}`;
}

function parseCursor(text: string | undefined): DeploymentsCursor | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d{1,15})-(.*)$/.exec(text);
  if (!match || !isDeploymentId(match[2]!)) throw new Problem('invalid-request', '`cursor` must be one a page of this list gave as `next`.');
  return { created: Number(match[1]), id: match[2]! };
}

const readers = requireSiteRead();

resource(deployments, '/v2/sites/:domain/deployments', {
  GET: [
    readers,
    async (c) => {
      const domain = domainParam(c);
      const site = await readableSite(c, domain);
      // One more than a page tells whether another follows.
      const records = await siteCoordinator(c.env, domain).deployments(domain, pageSize + 1, parseCursor(c.req.query('cursor')));
      const page = records.slice(0, pageSize);
      const body: DeploymentPage = {
        deployments: page.map((record) => deploymentView(c, record, site.liveDeploymentId)),
        next: records.length > pageSize ? cursorOf(page.at(-1)!) : null,
      };
      return c.json(body);
    },
  ],
  POST: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      const begun = await beginIncremental(c.env, c.req.raw, domain, deployerOf(c.get('principal')), provenanceOf(c.get('principal')), purgeNotice(c));
      const location = (id: string) => ({ location: `${new URL(c.req.url).pathname}/${id}` });
      if (begun.state === 'live') return deployAnswer(c, begun.result, location(begun.result.deploymentId));
      const missing = begun.state === 'uploading' ? begun.missing : undefined;
      return c.json(deploymentView(c, begun.record, null, missing), 201, location(begun.record.id));
    },
  ],
});

resource(deployments, '/v2/sites/:domain/deployments/:id', {
  GET: [
    readers,
    async (c) => {
      const domain = domainParam(c);
      const id = deploymentIdParam(c, domain);
      const coordinator = siteCoordinator(c.env, domain);
      const [site, record] = await Promise.all([coordinator.current(domain), coordinator.deployment(domain, id)]);
      // A first deploy's deployment exists before its site does: its creator may read it, to resume
      // the upload. To anyone else the domain is not hosted (404), as for every other read.
      const principal = c.get('principal');
      const creator = record?.createdBy === principal.userId ? { userId: record.createdBy, suspension: null, userSuspension: null } : null;
      await authorizeRead(c, domain, site ?? creator);
      if (!record) throw deploymentNotFound(domain, id);
      const missing = record.state === 'uploading' ? await stillMissing(c.env, record) : undefined;
      return c.json(deploymentView(c, record, site?.liveDeploymentId ?? null, missing));
    },
  ],
  // Cancels an upload under way, by the user who began it: its deployment and the bytes only it holds go, and stop counting against them.
  DELETE: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      const id = deploymentIdParam(c, domain);
      await siteCoordinator(c.env, domain).cancel(domain, c.get('principal').userId, id);
      return c.body(null, 204);
    },
  ],
});

resource(deployments, '/v2/sites/:domain/deployments/:id/activate', {
  POST: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      const id = deploymentIdParam(c, domain);
      return deployAnswer(c, await siteCoordinator(c.env, domain, purgeNotice(c)).activate(domain, c.get('principal').userId, id));
    },
  ],
});

resource(deployments, '/v2/sites/:domain/deployments/:id/blobs', {
  PUT: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      const id = deploymentIdParam(c, domain);
      const { record, missing } = await uploadBlobs(c.env, c.req.raw, domain, id, deployerOf(c.get('principal')));
      return c.json(deploymentView(c, record, null, missing));
    },
  ],
});

/** The finalize body: none, or `{"preview": boolean}`. */
async function previewAsked(request: Request): Promise<boolean> {
  if (!request.headers.get('content-type') && Number(request.headers.get('content-length') ?? 0) === 0) return false;
  const body = await readJsonBody(request, 'application/json');
  const { preview, ...rest } = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : { rest: body }) as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || (preview !== undefined && typeof preview !== 'boolean')) {
    throw new Problem('invalid-request', 'The body of a finalize is empty or {"preview": true|false}.');
  }
  return preview === true;
}

resource(deployments, '/v2/sites/:domain/deployments/:id/finalize', {
  POST: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      const id = deploymentIdParam(c, domain);
      const preview = await previewAsked(c.req.raw);
      const deployer = deployerOf(c.get('principal'));
      const { userId } = deployer;
      const coordinator = siteCoordinator(c.env, domain, purgeNotice(c));
      try {
        const done = await coordinator.finalize(domain, deployer, id, preview);
        return 'type' in done ? deployAnswer(c, done) : c.json(deploymentView(c, done, null));
      } catch (error) {
        if (!(error instanceof Problem && error.kind === 'not-found')) throw error;
        const answer = await finalizedAlready(c, domain, userId, id, preview);
        if (!answer) throw error;
        return answer;
      }
    },
  ],
});

/**
 * A finalize asked again once it succeeded (its answer lost with the connection, and the client
 * asking again, as the CLI does): answered as the site now stands, if that is what was asked. A
 * preview: the deployment. Live, and still live: the deploy result of a deploy the site serves
 * already (`unchanged`). Otherwise undefined: nothing of the caller's is uploading there (404).
 */
async function finalizedAlready(c: Context<AppEnv>, domain: string, userId: string, id: string, preview: boolean): Promise<Response | undefined> {
  const coordinator = siteCoordinator(c.env, domain);
  const [site, record] = await Promise.all([coordinator.current(domain), coordinator.deployment(domain, id)]);
  if (!site || record?.state !== 'ready' || record.createdBy !== userId) return undefined;
  if (preview) return c.json(deploymentView(c, record, site.liveDeploymentId));
  return site.liveDeploymentId === id ? deployAnswer(c, unchangedResult(site, Date.now())) : undefined;
}
