import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireSiteRead } from '../auth/middleware';
import type { DeploymentFallback, DeploymentHeaders, DeploymentRedirect, DeploymentRules } from '../common/api-types';
import type { SiteRules } from '../rules/rules-files';
import { deploymentNotFound } from '../coordinator/access/access';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { Problem } from '../http/problem';
import type { HostConfiguration } from '../configuration/parse';
import { hostOptionsOf } from '../serving/host-options';
import { resource } from '../http/resource';
import { readFileIndex } from '../storage/file-index';
import { deploymentIdParam } from './deployments';
import { domainParam } from './domain-param';
import { readableSite } from './site-access';

export const deploymentRules = new Hono<AppEnv>();

/** The host options' members that are rules, as the schema writes them (validated when they were stored). */
interface HostRules {
  redirects?: { from: string; to: string; status?: number }[];
  headers?: { uri?: string; fields: Record<string, string | string[]> }[];
  fallback?: string | Record<string, unknown>;
}

/**
 * The rules a deployment is served with, in the order serving applies them (src/serving/resolve.ts,
 * serve.ts): `_redirects` before the host options' redirects (which are tried before files, so
 * always forced, 308 unless set); the host options' headers before `_headers`; the fallbacks as
 * serving compiles them (src/serving/host-options.ts), the root `404.html` unless one names a 404 page.
 */
export function rulesView(deploymentId: string, configuration: HostConfiguration, files: SiteRules | undefined): DeploymentRules {
  const host = configuration as HostRules;
  const fileRedirects = (files?.redirects ?? []).map((rule): DeploymentRedirect => ({ source: '_redirects', ...rule }));
  const hostRedirects = (host.redirects ?? []).map(({ from, to, status }): DeploymentRedirect => ({ source: 'configuration', from, to, status: status ?? 308, force: true }));
  const hostHeaders = (host.headers ?? []).map(
    ({ uri, fields }): DeploymentHeaders => ({
      source: 'configuration',
      uri: uri ?? null,
      fields: Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, typeof value === 'string' ? [value] : value])),
      detach: [],
    }),
  );
  const fileHeaders = (files?.headers ?? []).map((rule): DeploymentHeaders => ({ source: '_headers', ...rule }));
  const configured = typeof host.fallback === 'string' ? { 200: host.fallback } : (host.fallback ?? {});
  const fallbacks = hostOptionsOf(configuration).fallbacks.map(
    ({ status, path }): DeploymentFallback => ({ source: String(status) in configured ? 'configuration' : 'default', status, path: `/${path}` }),
  );
  return { deploymentId, redirects: [...fileRedirects, ...hostRedirects], headers: [...hostHeaders, ...fileHeaders], fallbacks };
}

resource(deploymentRules, '/v2/sites/:domain/deployments/:id/rules', {
  GET: [
    requireSiteRead(),
    async (c) => {
      const domain = domainParam(c);
      const id = deploymentIdParam(c, domain);
      await readableSite(c, domain);
      const record = await siteCoordinator(c.env, domain).deployment(domain, id);
      if (!record) throw deploymentNotFound(domain, id);
      if (record.state === 'uploading') {
        throw new Problem('conflict', `Deployment ${id} of ${domain} is still uploading: its rules are read from its files when it is finalized.`);
      }
      const index = record.indexKey === null ? undefined : await readFileIndex(c.env.FILES, record.indexKey);
      return c.json(rulesView(id, record.configuration, index?.rules));
    },
  ],
});
