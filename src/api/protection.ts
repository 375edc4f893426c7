/**
 * `/v2/sites/<domain>/protection` and `/v2/sites/<domain>/share`: who may open a site's hosts, and
 * the links that let a member's visitor in (docs/api.md, "Protected sites"). The owner sets the
 * protection and revokes every link; the owner and the members mint links. The coordinator checks
 * the owner as it commits (src/coordinator/access/protection-change.ts).
 */
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope, requireSiteRead } from '../auth/middleware';
import type { ShareLink, SiteProtectionView } from '../common/protection-types';
import { siteUrl } from '../common/site-url';
import { deploymentNotFound } from '../coordinator/access/access';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { protectionOf } from '../coordinator/access/protection-change';
import { aliasLabel, checkedAlias } from '../content/label-checks';
import { readJsonBody } from '../http/json-body';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import { timestamp } from '../http/time';
import { settingsOf } from '../platform/settings';
import { signGrant } from '../protection/grant';
import { hashPassword } from '../protection/password-hash';
import { type SiteProtection, grantEpoch, hostMode, previewModes, siteModes } from '../protection/site-protection';
import { grantKey, grantPaths, sameHostPath } from '../serving/grant-key';
import { isDeploymentId } from '../coordinator/records/deployment-id';
import { domainParam } from './domain-param';
import { readableSite, requesterOf } from './site-access';

export const protection = new Hono<AppEnv>();

/** The longest site password, in bytes of UTF-8: a KDF's input need be no longer. */
export const maxPasswordBytes = 1024;

function view(protection: SiteProtection): SiteProtectionView {
  return { previews: protection.previews, site: protection.site, passwordSet: protection.password !== null, signedOutAt: protection.epoch === 0 ? null : timestamp(protection.epoch) };
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Problem('invalid-request', 'Send a JSON object.');
  return body as Record<string, unknown>;
}

function oneOf<T extends string>(body: Record<string, unknown>, name: string, values: readonly T[]): T {
  const value = body[name];
  if (!values.includes(value as T)) {
    throw new Problem('invalid-request', `"${name}" must be ${values.map((v) => `"${v}"`).join(' or ')}.`, { errors: [{ pointer: `/${name}`, message: `one of ${values.join(', ')}` }] });
  }
  return value as T;
}

/** A new password as sent: never echoed in an answer. */
function checkedPassword(c: Context<AppEnv>, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const { passwordMinLength } = settingsOf(c.env).protection;
  if (typeof value !== 'string' || [...value].length < passwordMinLength) {
    throw new Problem('invalid-request', `"password" must be text of at least ${passwordMinLength} characters.`, {
      errors: [{ pointer: '/password', message: 'too short' }],
      extensions: { limit: 'SITE_PASSWORD_MIN_LENGTH', value: passwordMinLength },
    });
  }
  if (new TextEncoder().encode(value).byteLength > maxPasswordBytes) {
    throw new Problem('invalid-request', `"password" may be at most ${maxPasswordBytes} bytes.`, { errors: [{ pointer: '/password', message: 'too long' }], extensions: { limit: 'MAX_SITE_PASSWORD_BYTES', value: maxPasswordBytes } });
  }
  return value;
}

resource(protection, '/v2/sites/:domain/protection', {
  GET: [
    requireSiteRead(),
    async (c) => {
      const domain = domainParam(c);
      const site = await readableSite(c, domain, 'read-own');
      return c.json(view(protectionOf(site, settingsOf(c.env).protection.newSitePreviews)));
    },
  ],
  PUT: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      const body = objectBody(await readJsonBody(c.req.raw, 'application/json'));
      const unknown = Object.keys(body).find((name) => !['previews', 'site', 'password'].includes(name));
      if (unknown !== undefined) throw new Problem('invalid-request', `Unknown member "${unknown}": send "previews", "site" and, to set one, "password".`, { errors: [{ pointer: `/${unknown}`, message: 'unknown' }] });
      const previews = oneOf(body, 'previews', previewModes);
      const site = oneOf(body, 'site', siteModes);
      const password = checkedPassword(c, body.password);
      const stored = await siteCoordinator(c.env, domain).protect(domain, requesterOf(c.get('principal')), {
        kind: 'set',
        previews,
        site,
        ...(password === undefined ? {} : { password: await hashPassword(password) }),
      });
      return c.json(view(stored));
    },
  ],
});

/** The host a link opens and its origin as the request reached the service: the site's domain, a deployment's preview host or an alias host. */
async function linkHost(c: Context<AppEnv>, domain: string, body: Record<string, unknown>): Promise<{ host: string; origin: string; preview: boolean }> {
  const url = new URL(c.req.url);
  const { previewHostname } = settingsOf(c.env);
  const previewOrigin = (label: string) => ({ host: `${label}.${previewHostname}`, origin: `${url.protocol}//${label}.${previewHostname}${url.port ? `:${url.port}` : ''}`, preview: true });
  if (body.deploymentId !== undefined && body.alias !== undefined) throw new Problem('invalid-request', 'Send "deploymentId" or "alias", not both.');
  if (body.deploymentId !== undefined) {
    const id = body.deploymentId;
    if (typeof id !== 'string' || !isDeploymentId(id)) throw deploymentNotFound(domain, String(id));
    const record = await siteCoordinator(c.env, domain).deployment(domain, id);
    if (record?.state !== 'ready') throw deploymentNotFound(domain, id);
    return previewOrigin(id);
  }
  const alias = checkedAlias(body.alias);
  if (alias !== null) return previewOrigin(await aliasLabel(domain, alias));
  return { host: domain, origin: new URL(siteUrl(url, domain)).origin, preview: false };
}

function expiresInOf(c: Context<AppEnv>, value: unknown): number {
  const { shareLinkMaxSeconds } = settingsOf(c.env).protection;
  if (value === undefined) return Math.min(86_400, shareLinkMaxSeconds);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > shareLinkMaxSeconds) {
    throw new Problem('invalid-request', `"expiresIn" must be a whole number of seconds from 1 to ${shareLinkMaxSeconds}.`, {
      errors: [{ pointer: '/expiresIn', message: `1 to ${shareLinkMaxSeconds}` }],
      extensions: { limit: 'SHARE_LINK_MAX_SECONDS', value: shareLinkMaxSeconds },
    });
  }
  return value;
}

resource(protection, '/v2/sites/:domain/share', {
  POST: [
    requireSiteRead(),
    async (c) => {
      const domain = domainParam(c);
      const site = await readableSite(c, domain);
      const body = objectBody(await readJsonBody(c.req.raw, 'application/json'));
      const path = body.path === undefined ? '/' : sameHostPath(body.path);
      if (path === undefined) throw new Problem('invalid-request', '"path" must be a path on the host, beginning with one "/".', { errors: [{ pointer: '/path', message: 'a path beginning with "/"' }] });
      const expiresIn = expiresInOf(c, body.expiresIn);
      const { host, origin, preview } = await linkHost(c, domain, body);
      const expires = Math.floor(Date.now() / 1000) + expiresIn;
      const protection = protectionOf(site, settingsOf(c.env).protection.newSitePreviews);
      const token = await signGrant(await grantKey(c.env), { host, expires, epoch: grantEpoch(site.created, protection), kind: 'link', path });
      const link: ShareLink = { url: `${origin}${grantPaths.open}?grant=${token}`, expiresAt: timestamp(expires * 1000), protected: hostMode(protection, preview) !== 'public' };
      return c.json(link);
    },
  ],
  DELETE: [
    requireScope('deploy'),
    async (c) => {
      const domain = domainParam(c);
      await siteCoordinator(c.env, domain).protect(domain, requesterOf(c.get('principal')), { kind: 'revoke' });
      return c.body(null, 204);
    },
  ],
});
