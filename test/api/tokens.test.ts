import { env } from 'cloudflare:workers';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { newToken } from '../../src/auth/token-format';
import type { ApiToken, CreatedApiToken, Identity, SignOut, Site } from '../../src/common/api-types';
import { Subscriber } from '../events/subscriber';
import { authorized, authorizedWith, call, deploy, deployForm, problemOf, token, type TokenOptions } from '../support/client';

const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const bearer = (secret: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${secret}` } });

async function create(body: unknown, as: TokenOptions): Promise<CreatedApiToken> {
  const response = await authorized('/v2/tokens', json('POST', body), as);
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json();
}

const listed = async (as: TokenOptions) => (await (await authorized('/v2/tokens', {}, as)).json<{ tokens: ApiToken[] }>()).tokens;
const whoami = (secret: string) => call('/v2/whoami', bearer(secret));

/** The documented secret-scanning pattern (docs/api.md, "Tokens"). */
const scanningPattern = /\bsitehost_[0-9A-Za-z]{36}\b/g;

describe('POST /v2/tokens', () => {
  const user: TokenOptions = { user: 'github|token-maker', scope: 'deploy global_read' };

  it('makes a token shown once, in the documented form, that acts as its user with its scopes', async () => {
    const made = await create({ name: 'CI', scopes: ['deploy'] }, user);
    expect(Object.keys(made).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'parentId', 'role', 'scopes', 'sites', 'token']);
    // Made by a JWT: no parent token.
    expect(made).toMatchObject({ name: 'CI', scopes: ['deploy'], sites: null, role: null, lastUsedAt: null, parentId: null });
    expect(made.token.match(scanningPattern)).toEqual([made.token]);
    // 90 days by default.
    expect(Date.parse(`${made.expiresAt}Z`) - Date.parse(`${made.createdAt}Z`)).toBe(90 * 86_400_000);
    const identity = await (await whoami(made.token)).json<Identity>();
    expect(identity).toMatchObject({ userId: 'github|token-maker', scopes: ['deploy'], tokenId: made.id, sites: null, expiresAt: made.expiresAt });
    expect((await call('/v2/sites/token-maker.example', bearer(made.token, { method: 'PUT', body: deployForm({ 'index.html': 'hi' }) }))).status).toBe(200);
    // The list never holds the secret.
    const tokens = await listed(user);
    expect(tokens.find((listedToken) => listedToken.id === made.id)).toBeDefined();
    expect(JSON.stringify(tokens)).not.toContain(made.token);
    expect(JSON.stringify(tokens)).not.toMatch(scanningPattern);
  });

  it('refuses a mistyped token by its checksum, and a made-up one of the right form as unknown', async () => {
    const made = await create({ name: 'typo', scopes: ['deploy'] }, user);
    const last = made.token.at(-1)!;
    const mistyped = made.token.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    const refused = await whoami(mistyped);
    expect(refused.status).toBe(401);
    expect((await problemOf(refused)).detail).toMatch(/checksum/);
    const retyped = made.token.slice(0, 12) + (made.token[12] === 'x' ? 'y' : 'x') + made.token.slice(13);
    expect((await whoami(retyped)).status).toBe(401);
    // Well formed, with a right checksum, but never made: looked up, and unknown.
    const neverMade = await whoami(newToken());
    expect(neverMade.status).toBe(401);
    expect((await problemOf(neverMade)).detail).toMatch(/never existed/);
  });

  it('sets lastUsedAt on first use, and does not write it again on every request', async () => {
    const made = await create({ name: 'used', scopes: ['deploy'] }, user);
    expect((await whoami(made.token)).status).toBe(200);
    let first: string | null = null;
    await expect.poll(async () => (first = (await listed(user)).find((t) => t.id === made.id)!.lastUsedAt)).not.toBeNull();
    for (let i = 0; i < 3; i++) expect((await whoami(made.token)).status).toBe(200);
    expect((await listed(user)).find((t) => t.id === made.id)!.lastUsedAt).toBe(first);
  });

  it('answers each bad request with a problem naming it, and stores nothing', async () => {
    const maker: TokenOptions = { user: 'github|bad-requests', scope: 'deploy' };
    expect((await deploy('bad-requests-own.example', { 'index.html': 'x' }, undefined, maker)).status).toBe(200);
    expect((await deploy('bad-requests-other.example', { 'index.html': 'x' }, undefined, { user: 'github|someone-else' })).status).toBe(200);
    const now = Date.now();
    const cases: [unknown, number, RegExp][] = [
      [{ name: 'x', scopes: ['deploy', 'root'] }, 400, /"root"/],
      [{ name: 'x', scopes: [] }, 400, /scopes/],
      [{ name: '', scopes: ['deploy'] }, 400, /name/],
      [{ name: 'x', scopes: ['global_read'] }, 403, /global_read/],
      [{ name: 'x', scopes: ['deploy'], sites: ['bad-requests-other.example'] }, 403, /bad-requests-other\.example/],
      [{ name: 'x', scopes: ['deploy'], sites: ['bad-requests-own.example', 'nobody-has-this.example'] }, 403, /nobody-has-this\.example/],
      [{ name: 'x', scopes: ['deploy'], expiresAt: new Date(now - 60_000).toISOString().slice(0, 23) }, 400, /past/],
      [{ name: 'x', scopes: ['deploy'], expiresAt: new Date(now + 366 * 86_400_000).toISOString().slice(0, 23) }, 400, /API_TOKEN_MAX_DAYS/],
      [{ name: 'x', scopes: ['deploy'], expiresAt: 'tomorrow' }, 400, /expiresAt/],
      [['not', 'an', 'object'], 400, /object/],
    ];
    for (const [body, status, detail] of cases) {
      const response = await authorized('/v2/tokens', json('POST', body), maker);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect((await problemOf(response)).detail, JSON.stringify(body)).toMatch(detail);
    }
    expect(await listed(maker)).toEqual([]);
  });

  it('refuses more than API_TOKENS_PER_USER unexpired tokens, naming the setting', async () => {
    const limited: TokenOptions = { user: 'github|token-hoarder' };
    const vars = { API_TOKENS_PER_USER: '2' };
    for (const name of ['one', 'two']) expect((await authorizedWith(vars, '/v2/tokens', json('POST', { name, scopes: ['deploy'] }), limited)).status).toBe(201);
    const refused = await authorizedWith(vars, '/v2/tokens', json('POST', { name: 'three', scopes: ['deploy'] }), limited);
    expect(refused.status).toBe(403);
    expect(await problemOf(refused)).toMatchObject({ type: '/problems/quota-exceeded', limit: 'API_TOKENS_PER_USER', value: 2 });
    expect((await listed(limited)).map((t) => t.name).sort()).toEqual(['one', 'two']);
  });

  it('never makes a token with more than the API token making it holds', async () => {
    const parent = await create({ name: 'parent', scopes: ['deploy'], expiresAt: new Date(Date.now() + 86_400_000).toISOString().slice(0, 23) }, user);
    const wider = await call('/v2/tokens', bearer(parent.token, json('POST', { name: 'wider', scopes: ['deploy', 'global_read'] })));
    expect(wider.status).toBe(403);
    const longer = await call('/v2/tokens', bearer(parent.token, json('POST', { name: 'longer', scopes: ['deploy'], expiresAt: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 23) })));
    expect(longer.status).toBe(400);
    // Without an expiry, the child lives as long as its parent, not 90 days.
    const child = await call('/v2/tokens', bearer(parent.token, json('POST', { name: 'child', scopes: ['deploy'] })));
    expect(child.status).toBe(201);
    expect((await child.json<CreatedApiToken>()).expiresAt).toBe(parent.expiresAt);
  });
});

describe('a token limited to sites', () => {
  const owner: TokenOptions = { user: 'github|restricted-owner', scope: 'deploy' };

  it('reaches only its sites, lists only them, and cannot make, list or revoke tokens (403)', async () => {
    for (const domain of ['restricted-a.example', 'restricted-b.example']) expect((await deploy(domain, { 'index.html': domain }, undefined, owner)).status).toBe(200);
    const made = await create({ name: 'only a', scopes: ['deploy'], sites: ['Restricted-A.example'] }, owner);
    expect(made.sites).toEqual(['restricted-a.example']);
    const put = (domain: string) => call(`/v2/sites/${domain}`, bearer(made.token, { method: 'PUT', body: deployForm({ 'index.html': 'new' }) }));
    expect((await put('restricted-a.example')).status).toBe(200);
    const outside = await put('restricted-b.example');
    expect(outside.status).toBe(403);
    expect((await problemOf(outside)).detail).toMatch(/limited to the sites restricted-a\.example/);
    // A new domain is outside its sites too: it cannot claim one.
    expect((await put('restricted-c.example')).status).toBe(403);
    const sites = await (await call('/v2/sites', bearer(made.token))).json<Site[]>();
    expect(sites.map((site) => site.domain)).toEqual(['restricted-a.example']);
    for (const [path, init] of [
      ['/v2/tokens', {}],
      ['/v2/tokens', json('POST', { name: 'escape', scopes: ['deploy'] })],
      ['/v2/tokens', { method: 'DELETE' }],
      [`/v2/tokens/${made.id}`, { method: 'DELETE' }],
      ['/v2/usage', {}],
      ['/v2/user/events', {}],
    ] as const) {
      expect((await call(path, bearer(made.token, init))).status, `${init.method ?? 'GET'} ${path}`).toBe(403);
    }
    expect((await listed(owner)).map((t) => t.id)).toContain(made.id);
  });
});

describe('revocation', () => {
  const user: TokenOptions = { user: 'github|revoker', scope: 'deploy' };

  it('DELETE /v2/tokens/<id> refuses the token at once (401) here, and 404 for a token not the caller’s', async () => {
    const made = await create({ name: 'to revoke', scopes: ['deploy'] }, user);
    expect((await whoami(made.token)).status).toBe(200);
    expect((await authorized(`/v2/tokens/${made.id}`, { method: 'DELETE' }, { user: 'github|not-the-owner' })).status).toBe(404);
    expect((await whoami(made.token)).status).toBe(200);
    expect((await authorized(`/v2/tokens/${made.id}`, { method: 'DELETE' }, user)).status).toBe(204);
    const refused = await whoami(made.token);
    expect(refused.status).toBe(401);
    expect((await problemOf(refused)).detail).toMatch(/revoked/);
    expect((await listed(user)).map((t) => t.id)).not.toContain(made.id);
    expect((await authorized(`/v2/tokens/${made.id}`, { method: 'DELETE' }, user)).status).toBe(404);
  });

  it('DELETE /v2/tokens revokes every token of the user and every JWT issued before, not later ones nor other users’', async () => {
    const who = 'github|signs-out';
    const yearLong = await token({ user: who, expiresIn: '365d' });
    const bystander = await token({ user: 'github|bystander' });
    const made = await create({ name: 'CI', scopes: ['deploy'] }, { user: who });
    expect((await whoami(yearLong)).status).toBe(200);
    expect((await whoami(made.token)).status).toBe(200);
    const signOut = await call('/v2/tokens', bearer(yearLong, { method: 'DELETE' }));
    expect(signOut.status).toBe(200);
    const answer = await signOut.json<SignOut>();
    expect(answer.revoked).toBe(1);
    for (const refused of [yearLong, made.token]) expect((await whoami(refused)).status).toBe(401);
    expect((await problemOf(await whoami(yearLong))).detail).toMatch(/signed out everywhere/);
    expect((await whoami(bystander)).status).toBe(200);
    // A token issued at the line or after it is accepted: signing in again works.
    const line = Date.parse(`${answer.signedOutBefore}Z`) / 1000;
    const fresh = await new SignJWT({ scope: 'deploy' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(who)
      .setIssuer('sitehost')
      .setAudience('sitehost')
      .setIssuedAt(line)
      .setExpirationTime(line + 3600)
      .sign(new TextEncoder().encode(env.AUTH_SECRET!));
    expect((await whoami(fresh)).status).toBe(200);
  });
});

describe('token events', () => {
  it('token-create and token-revoke reach their user’s own stream only, without a secret', async () => {
    const me: TokenOptions = { user: 'github|event-watcher' };
    const mine = new Subscriber(await authorized('/v2/user/events', {}, me));
    const theirs = new Subscriber(await authorized('/v2/user/events', {}, { user: 'github|someone-watching' }));
    const service = new Subscriber(await authorized('/v2/events', {}, { scope: 'global_read' }));
    try {
      const made = await create({ name: 'watched', scopes: ['deploy'] }, me);
      expect((await authorized(`/v2/tokens/${made.id}`, { method: 'DELETE' }, me)).status).toBe(204);
      expect((await authorized('/v2/tokens', { method: 'DELETE' }, me)).status).toBe(200);
      await mine.until(() => mine.events.length >= 3);
      expect(mine.events.map((event) => event.event)).toEqual(['token-create', 'token-revoke', 'token-revoke']);
      const [created, revoked, everywhere] = mine.events.map((event) => JSON.parse(event.data));
      expect(created).toEqual({ type: 'token-create', userId: 'github|event-watcher', id: made.id, name: 'watched', scopes: ['deploy'], sites: null, role: null, createdAt: made.createdAt, expiresAt: made.expiresAt, lastUsedAt: null, parentId: null });
      expect(revoked).toEqual({ type: 'token-revoke', userId: 'github|event-watcher', ids: [made.id], everywhere: false });
      expect(everywhere).toMatchObject({ type: 'token-revoke', userId: 'github|event-watcher', ids: [], everywhere: true });
      expect(mine.raw).not.toContain(made.token);
      // A deploy after them reaches the service's stream; the token events never did.
      expect((await deploy('token-events-marker.example', { 'index.html': 'x' })).status).toBe(200);
      await service.until(() => service.of(['token-events-marker.example']).length > 0);
      expect(service.events.map((event) => event.event)).not.toContain('token-create');
      expect(theirs.events).toEqual([]);
    } finally {
      await Promise.all([mine.close(), theirs.close(), service.close()]);
    }
  });
});
