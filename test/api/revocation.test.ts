/**
 * Revocation that holds (docs/design.md, "Revocation that holds"): what a location's memory of a
 * credential may not answer. "Elsewhere" is another location: its revocation reaches D1 but not
 * this location's memory, so the tests write D1 directly, as that location's request did.
 */
import { createExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { signOutEverywhere } from '../../src/auth/token-store';
import type { ApiToken, CreatedApiToken } from '../../src/common/api-types';
import worker from '../../src/index';
import { Subscriber } from '../events/subscriber';
import { authorized, call, deploy, problemOf, token, type TokenOptions } from '../support/client';

const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const admin: TokenOptions = { user: 'github|revocation-operator', scope: 'admin' };
/** Streams check their reader every second here rather than every 30. */
const everySecond = { API_TOKEN_CHECK_SECONDS: '1' };

/** A request with `bearer` through the Worker, with `vars` over the bound settings. */
async function send(bearer: string, path: string, init: RequestInit = {}, vars: Record<string, string> = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${bearer}`);
  const request = new Request(`http://localhost${path}`, { ...init, headers }) as Request<unknown, IncomingRequestCfProperties>;
  return worker.fetch(request, { ...env, ...vars }, createExecutionContext());
}

async function mint(bearer: string, name: string): Promise<CreatedApiToken> {
  const response = await send(bearer, '/v2/tokens', json('POST', { name, scopes: ['deploy', 'global_read'] }));
  expect(response.status, await response.clone().text()).toBe(201);
  return response.json();
}

/** A sign-out everywhere made at another location: D1 has it, this location's memory does not. */
async function signOutElsewhere(userId: string): Promise<void> {
  // The next second: every JWT issued up to now is before the line.
  await signOutEverywhere(env.DB, userId, Math.floor(Date.now() / 1000) + 1);
}

/** Whether `ended` settles before `ms` pass: a bound for a stream that would otherwise stay open, failing the test. */
async function endsWithin(ended: Promise<unknown>, ms = 20_000): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([ended.then(() => true), open]);
  } finally {
    clearTimeout(timer);
  }
}

/** A WebSocket stream, accepted, and a promise of its close. */
function socketOf(response: Response): { closed: Promise<CloseEvent>; messages: { event: string; data: Record<string, unknown> }[] } {
  expect(response.status).toBe(101);
  const socket = response.webSocket!;
  const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', resolve));
  const messages: { event: string; data: Record<string, unknown> }[] = [];
  socket.addEventListener('message', (message) => messages.push(JSON.parse(message.data as string)));
  socket.accept();
  return { closed, messages };
}

describe('a credential revoked elsewhere', () => {
  it('makes no token, changes no member, trust or site, and opens no stream, though this location still remembers it as good', async () => {
    const user = 'github|revocation-jwt';
    const domain = 'revocation-jwt.example';
    const jwt = await token({ user, scope: 'deploy global_read' });
    expect((await deploy(domain, { 'index.html': 'mine' }, undefined, { user })).status).toBe(200);
    expect((await send(jwt, '/v2/whoami')).status).toBe(200);
    await signOutElsewhere(user);
    // This location remembers the JWT's check (up to API_TOKEN_CHECK_SECONDS): a read still passes.
    expect((await send(jwt, '/v2/whoami')).status).toBe(200);

    const minted = await send(jwt, '/v2/tokens', json('POST', { name: 'after the sign-out', scopes: ['deploy'] }));
    expect(minted.status).toBe(401);
    expect(await problemOf(minted)).toMatchObject({ type: expect.stringContaining('unauthorized'), detail: expect.stringContaining('signed out everywhere') });
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM api_tokens WHERE user_id = ?').bind(user).first<{ n: number }>())?.n).toBe(0);

    const changes: [string, RequestInit][] = [
      [`/v2/sites/${domain}/members/${encodeURIComponent('github|revocation-friend')}`, json('PUT', { role: 'deployer' })],
      [`/v2/sites/${domain}/trust/github`, json('PUT', { repository: 'octo/site', repositoryId: 1, repositoryOwnerId: 2, workflow: 'deploy.yml' })],
      [`/v2/sites/${domain}`, { method: 'DELETE' }],
      ['/v2/user/events', {}],
      [`/v2/sites/${domain}/events`, {}],
      ['/v2/events', {}],
    ];
    for (const [path, init] of changes) {
      const response = await send(jwt, path, init);
      await response.body?.cancel();
      expect(response.status, `${init.method ?? 'GET'} ${path}`).toBe(401);
    }
    // Nothing changed: the site is still the user's, with no member and no trust policy.
    const count = async (table: string) => (await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE domain = ?`).bind(domain).first<{ n: number }>())?.n;
    expect([await count('sites'), await count('site_members'), await count('site_trust_github')]).toEqual([1, 0, 0]);
  });

  it('an API token revoked elsewhere makes no token', async () => {
    const user = 'github|revocation-token';
    const parent = await mint(await token({ user, scope: 'deploy global_read' }), 'parent');
    expect((await send(parent.token, '/v2/whoami')).status).toBe(200);
    await env.DB.prepare('DELETE FROM api_tokens WHERE id = ?').bind(parent.id).run();
    expect((await send(parent.token, '/v2/whoami')).status).toBe(200);
    const minted = await send(parent.token, '/v2/tokens', json('POST', { name: 'child', scopes: ['deploy'] }));
    expect(minted.status).toBe(401);
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM api_tokens WHERE user_id = ?').bind(user).first<{ n: number }>())?.n).toBe(0);
  });

  it('a suspended user makes no token, and may still sign out everywhere', async () => {
    const user = 'github|revocation-suspended-maker';
    const jwt = await token({ user });
    expect((await authorized(`/v2/users/${encodeURIComponent(user)}/suspension`, json('PUT', { reason: 'Phishing' }), admin)).status).toBe(201);
    const minted = await send(jwt, '/v2/tokens', json('POST', { name: 'while suspended', scopes: ['deploy'] }));
    expect(minted.status).toBe(403);
    expect(await problemOf(minted)).toMatchObject({ type: expect.stringContaining('user-suspended'), reason: 'Phishing' });
    // What takes power away is still theirs to do: a suspended user signs out everywhere.
    expect((await send(jwt, '/v2/tokens', { method: 'DELETE' })).status).toBe(200);
  });
});

describe('a credential revoked elsewhere revokes and suspends nothing either', () => {
  it('a JWT signed out elsewhere neither signs its user out again nor revokes their new tokens', async () => {
    const user = 'github|revocation-stale-revoker';
    const stale = await token({ user });
    expect((await send(stale, '/v2/whoami')).status).toBe(200);
    await signOutElsewhere(user);
    // The user signs in again and makes a token; the stale JWT is still remembered here as good.
    const fresh = await mint(await token({ user, scope: 'deploy global_read', issuedAt: Math.floor(Date.now() / 1000) + 2 }), 'after signing in again');
    expect((await send(stale, '/v2/whoami')).status).toBe(200);
    for (const path of [`/v2/tokens/${fresh.id}`, '/v2/tokens']) {
      expect((await send(stale, path, { method: 'DELETE' })).status, `DELETE ${path}`).toBe(401);
    }
    expect((await send(fresh.token, '/v2/whoami')).status).toBe(200);
  });

  it("an operator's credential signed out elsewhere suspends no user or site, and replays or reconciles nothing", async () => {
    const operator = 'github|revocation-stale-operator';
    const stale = await token({ user: operator, scope: 'admin' });
    const domain = 'revocation-stale-operator.example';
    const victim = 'github|revocation-stale-operator-victim';
    expect((await deploy(domain, { 'index.html': 'x' }, undefined, { user: victim })).status).toBe(200);
    expect((await send(stale, '/v2/whoami')).status).toBe(200);
    await signOutElsewhere(operator);
    const changes: [string, RequestInit][] = [
      [`/v2/users/${encodeURIComponent(victim)}/suspension`, json('PUT', { reason: 'Stale' })],
      [`/v2/sites/${domain}/suspension`, json('PUT', { reason: 'Stale' })],
      [`/v2/sites/${domain}/dead-letters/replay`, { method: 'POST' }],
      [`/v2/sites/${domain}/reconcile`, { method: 'POST' }],
    ];
    for (const [path, init] of changes) expect((await send(stale, path, init)).status, `${init.method} ${path}`).toBe(401);
    expect((await env.DB.prepare('SELECT COUNT(*) AS n FROM user_suspensions WHERE user_id = ?').bind(victim).first<{ n: number }>())?.n).toBe(0);
    expect((await call(`http://${domain}/`)).status).toBe(200);
  });
});

describe('tokens made by tokens', () => {
  it('record their parent, and go with it: revoking a token revokes what it made, and what those made', async () => {
    const user = 'github|revocation-chain';
    const jwt = await token({ user, scope: 'deploy global_read' });
    const first = await mint(jwt, 'first');
    const second = await mint(first.token, 'second');
    const third = await mint(second.token, 'third');
    const apart = await mint(jwt, 'apart');
    expect([first.parentId, second.parentId, third.parentId, apart.parentId]).toEqual([null, first.id, second.id, null]);
    for (const made of [first, second, third]) expect((await send(made.token, '/v2/whoami')).status).toBe(200);

    const watcher = new Subscriber(await send(apart.token, '/v2/user/events'));
    try {
      expect((await send(jwt, `/v2/tokens/${first.id}`, { method: 'DELETE' })).status).toBe(204);
      for (const made of [first, second, third]) expect((await send(made.token, '/v2/whoami')).status).toBe(401);
      expect((await send(apart.token, '/v2/whoami')).status).toBe(200);
      const listed = (await (await send(jwt, '/v2/tokens')).json<{ tokens: ApiToken[] }>()).tokens;
      expect(listed.map((listedToken) => listedToken.name)).toEqual(['apart']);
      await watcher.until(() => watcher.events.some((event) => event.event === 'token-revoke'));
      const revoked = JSON.parse(watcher.events.find((event) => event.event === 'token-revoke')!.data) as { ids: string[] };
      expect(revoked.ids).toEqual([first.id, expect.any(String), expect.any(String)]);
      expect([...revoked.ids].sort()).toEqual([first.id, second.id, third.id].sort());
    } finally {
      await watcher.close();
    }
  });
});

describe('open streams', () => {
  it('end, SSE and WebSocket, site, user and service-wide, once their API token is revoked, however quiet', async () => {
    const user = 'github|revocation-streams';
    const domain = 'revocation-streams.example';
    const jwt = await token({ user, scope: 'deploy global_read' });
    expect((await deploy(domain, { 'index.html': 'quiet' }, undefined, { user })).status).toBe(200);
    const reader = await mint(jwt, 'reader');
    const paths = ['/v2/user/events', '/v2/events', `/v2/sites/${domain}/events`];
    const streams = await Promise.all(paths.map(async (path) => new Subscriber(await send(reader.token, path, {}, everySecond))));
    const sockets = await Promise.all(paths.map(async (path) => socketOf(await send(reader.token, path, { headers: { upgrade: 'websocket' } }, everySecond))));
    for (const stream of streams) expect(stream.response.status).toBe(200);

    expect((await send(jwt, `/v2/tokens/${reader.id}`, { method: 'DELETE' })).status).toBe(204);
    const ended = await Promise.all([...streams.map((stream) => endsWithin(stream.ended)), ...sockets.map((socket) => endsWithin(socket.closed))]);
    expect(ended).toEqual(paths.flatMap(() => [true, true]));
    for (const socket of sockets) expect((await socket.closed).code).toBe(1008);
  });

  it("end once their JWT expires, as an API token's do", async () => {
    const user = 'github|revocation-expiring-stream';
    const expiring = await token({ user, scope: 'deploy global_read', expiresIn: Math.floor(Date.now() / 1000) + 3 });
    const stream = new Subscriber(await send(expiring, '/v2/user/events', {}, everySecond));
    const socket = socketOf(await send(expiring, '/v2/events', { headers: { upgrade: 'websocket' } }, everySecond));
    expect(stream.response.status).toBe(200);
    expect(await Promise.all([endsWithin(stream.ended), endsWithin(socket.closed)])).toEqual([true, true]);
    expect((await socket.closed).code).toBe(1008);
  });

  it('end once their user signs out everywhere elsewhere, or is suspended', async () => {
    const user = 'github|revocation-signed-out-stream';
    const jwt = await token({ user });
    const signedOut = new Subscriber(await send(jwt, '/v2/user/events', {}, everySecond));
    expect(signedOut.response.status).toBe(200);
    await signOutElsewhere(user);
    expect(await endsWithin(signedOut.ended)).toBe(true);

    const suspendedUser = 'github|revocation-suspended-stream';
    const domain = 'revocation-suspended-stream.example';
    expect((await deploy(domain, { 'index.html': 'x' }, undefined, { user: suspendedUser })).status).toBe(200);
    const socket = socketOf(await send(await token({ user: suspendedUser }), `/v2/sites/${domain}/events`, { headers: { upgrade: 'websocket' } }, everySecond));
    expect((await authorized(`/v2/users/${encodeURIComponent(suspendedUser)}/suspension`, json('PUT', { reason: 'Abuse' }), admin)).status).toBe(201);
    expect(await endsWithin(socket.closed)).toBe(true);
    expect((await socket.closed).code).toBe(1008);
    // And a new one is refused, saying why.
    const refused = await send(await token({ user: suspendedUser }), `/v2/sites/${domain}/events`);
    expect(refused.status).toBe(403);
    expect(await problemOf(refused)).toMatchObject({ type: expect.stringContaining('user-suspended') });
  });
});
