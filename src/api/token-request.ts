/**
 * What `POST /v2/tokens` asks for, read and checked: each mistake a 400 (or 403) naming it, and
 * nothing stored. The caller's own bound (src/auth/api-tokens.ts) and its sites (./token-sites.ts) follow.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { type Scope, type TokenRequest, boundByCaller, knownScopes } from '../auth/api-tokens';
import { type Ceiling, ceilings } from '../auth/authority';
import { Problem } from '../http/problem';
import { parseTimestamp, timestamp } from '../http/time';
import { parseDomain } from '../platform/domain-name';
import { settingsOf } from '../platform/settings';
import { refuseUnreachableSites } from './token-sites';

const dayMs = 86_400_000;
/** A new token lives this long unless it asks otherwise (and no longer than API_TOKEN_MAX_DAYS). */
export const defaultTokenDays = 90;
/** A token's name, at most: a label for people. */
const maxNameLength = 100;

function invalid(pointer: string, message: string, extensions?: Record<string, unknown>): Problem {
  return new Problem('invalid-request', `${pointer.slice(1)} ${message}.`, { errors: [{ pointer, message }], ...(extensions ? { extensions } : {}) });
}

function nameOf(value: unknown): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (!name || name.length > maxNameLength) throw invalid('/name', `must be text of 1 to ${maxNameLength} characters`);
  return name;
}

function scopesOf(value: unknown): Scope[] {
  if (!Array.isArray(value) || value.length === 0) throw invalid('/scopes', `must be a non-empty array of scopes (${knownScopes.join(', ')})`);
  value.forEach((scope, index) => {
    if (!knownScopes.includes(scope as Scope)) {
      throw invalid(`/scopes/${index}`, `is not a scope: ${JSON.stringify(scope)} (known: ${knownScopes.join(', ')})`);
    }
  });
  return [...new Set(value as Scope[])].sort();
}

/** The domains `sites` names, in its order (so that a problem points at what was sent); null: every site. */
function sitesOf(value: unknown, c: Context<AppEnv>): string[] | null {
  if (value === undefined || value === null) return null;
  const { apiHostnames, quotas } = settingsOf(c.env);
  if (!Array.isArray(value) || value.length === 0) throw invalid('/sites', 'must be a non-empty array of domains of your sites, or absent for all of them');
  // A bound on the request: a token for more sites than a user may own is no narrow token.
  if (value.length > quotas.maxSites) throw invalid('/sites', `names more domains than a user may own (MAX_SITES_PER_USER is ${quotas.maxSites})`, { limit: 'MAX_SITES_PER_USER', value: quotas.maxSites });
  return value.map((domain, index) => {
    if (typeof domain !== 'string') throw invalid(`/sites/${index}`, 'must be a domain');
    return parseDomain(domain, apiHostnames);
  });
}

function expiryOf(value: unknown, c: Context<AppEnv>, now: number): number {
  const caller = c.get('principal');
  const { maxDays } = settingsOf(c.env).apiTokens;
  const latest = now + maxDays * dayMs;
  if (value === undefined || value === null) {
    // An API token making a token bounds its expiry (boundByCaller); the default fits within it.
    const bound = caller.tokenId === null ? latest : Math.min(latest, caller.expiresAt);
    return Math.min(now + defaultTokenDays * dayMs, bound);
  }
  const expires = typeof value === 'string' ? parseTimestamp(value) : undefined;
  if (expires === undefined) throw invalid('/expiresAt', `must be a timestamp such as ${timestamp(now + defaultTokenDays * dayMs)} (UTC)`);
  if (expires <= now) throw invalid('/expiresAt', 'is in the past');
  if (expires > latest) {
    throw invalid('/expiresAt', `is more than ${maxDays} days away (API_TOKEN_MAX_DAYS), after ${timestamp(latest)}`, { limit: 'API_TOKEN_MAX_DAYS', value: maxDays });
  }
  return expires;
}

/** What a token limited to sites is there at most (`role`, default deployer); a token of every site takes none: it is its user's own role. */
function roleOf(value: unknown, sites: readonly string[] | null): Ceiling | null {
  if (value === undefined || value === null) return sites ? 'deployer' : null;
  if (!sites) throw invalid('/role', 'applies to a token limited to sites: send "sites" with it, or leave it out');
  if (!ceilings.includes(value as Ceiling)) throw invalid('/role', `must be ${ceilings.map((ceiling) => `"${ceiling}"`).join(' or ')}, not ${JSON.stringify(value)}`);
  return value as Ceiling;
}

/** The new token's request, from a body already read as JSON. */
export async function tokenRequestOf(body: unknown, c: Context<AppEnv>, now: number): Promise<TokenRequest> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Problem('invalid-request', 'The body must be a JSON object: {"name", "scopes", "sites"?, "role"?, "expiresAt"?}.');
  const fields = body as Record<string, unknown>;
  const sites = sitesOf(fields.sites, c);
  const request: TokenRequest = {
    name: nameOf(fields.name),
    scopes: scopesOf(fields.scopes),
    sites: sites && [...new Set(sites)].sort(),
    role: roleOf(fields.role, sites),
    expires: expiryOf(fields.expiresAt, c, now),
  };
  boundByCaller(c.get('principal'), request);
  if (sites) await refuseUnreachableSites(c, sites, request.scopes, request.role!);
  return request;
}
