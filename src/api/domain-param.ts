import type { Context } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { parseDomain } from '../platform/domain-name';
import { Problem } from '../http/problem';
import { settingsOf } from '../platform/settings';

/** The `<domain>` path parameter, normalised and validated (400 `invalid-domain`). */
export function domainParam(c: Context<AppEnv>): string {
  const { apiHostnames, previewHostname } = settingsOf(c.env);
  const domain = parseDomain(c.req.param('domain') ?? '', apiHostnames);
  // Names under the preview host are deployments' previews (src/serving/preview.ts): a site there would be shadowed.
  if (domain === previewHostname || domain.endsWith(`.${previewHostname}`)) {
    throw new Problem('invalid-domain', `"${domain}" is not a valid domain: names under ${previewHostname} are preview hosts.`);
  }
  return domain;
}
