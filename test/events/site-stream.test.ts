/** `GET /v2/sites/<domain>/events` (docs/events.md, "One site's events"): the site's events for its owner and members, nobody else's. */
import { describe, expect, it } from 'vitest';
import { authorized, authorizedWith, deploy, type TokenOptions } from '../support/client';
import { Subscriber } from './subscriber';

const owner: TokenOptions = { user: 'github|site-stream-owner' };
const viewer: TokenOptions = { user: 'github|site-stream-viewer' };
const domain = 'site-stream.example';
const other = 'site-stream-other.example';

const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const types = (subscriber: Subscriber) => subscriber.events.map((event) => [event.event, (JSON.parse(event.data) as { domain: string }).domain]);

describe('GET /v2/sites/<domain>/events', () => {
  it("streams a site's events to a viewer, live and replayed, and none of another site's", async () => {
    expect((await deploy(domain, { 'index.html': 'v1' }, undefined, owner)).status).toBe(200);
    expect((await deploy(other, { 'index.html': 'x' }, undefined, owner)).status).toBe(200);
    expect((await authorized(`/v2/sites/${domain}/members/${encodeURIComponent(viewer.user!)}`, json('PUT', { role: 'viewer' }), owner)).status).toBe(201);

    const live = new Subscriber(await authorized(`/v2/sites/${domain}/events`, {}, viewer));
    expect(live.response.status).toBe(200);
    expect((await deploy(other, { 'index.html': 'y' }, undefined, owner)).status).toBe(200);
    expect((await deploy(domain, { 'index.html': 'v2' }, undefined, owner)).status).toBe(200);
    await live.until(() => live.events.some((event) => event.event === 'site-deploy'));
    expect(types(live)).toEqual([['site-deploy', domain]]);
    await live.close();

    // From the start of the retained history: the site's own, in order, member-add among them.
    const replayed = new Subscriber(await authorized(`/v2/sites/${domain}/events?since=0`, {}, viewer));
    await replayed.until(() => replayed.events.filter((event) => event.event === 'site-deploy').length === 2);
    expect(types(replayed)).toEqual([
      ['site-deploy', domain],
      ['member-add', domain],
      ['site-deploy', domain],
    ]);
    await replayed.close();
  });

  it("pushes over a WebSocket a site's events only", async () => {
    const response = await authorized(`/v2/sites/${domain}/events`, { headers: { upgrade: 'websocket' } }, viewer);
    expect(response.status).toBe(101);
    const socket = response.webSocket!;
    socket.accept();
    const messages: { event: string; data: { domain: string } }[] = [];
    let wake = () => {};
    socket.addEventListener('message', (message) => {
      messages.push(JSON.parse(message.data as string));
      wake();
    });
    expect((await deploy(other, { 'index.html': 'ws other' }, undefined, owner)).status).toBe(200);
    expect((await deploy(domain, { 'index.html': 'ws mine' }, undefined, owner)).status).toBe(200);
    while (!messages.some((message) => message.event === 'site-deploy' && message.data.domain === domain)) await new Promise<void>((resolve) => (wake = resolve));
    // Replayed from its start (none asked) and live: nothing of the other site.
    expect(messages.every((message) => message.data.domain === domain)).toBe(true);
    socket.close();
  });

  it('ends a stream, SSE or WebSocket, once its reader may no longer read the site, delivering nothing past it', async () => {
    const site = 'site-stream-removed.example';
    const member: TokenOptions = { user: 'github|site-stream-removed' };
    expect((await deploy(site, { 'index.html': 'v1' }, undefined, owner)).status).toBe(200);
    expect((await authorized(`/v2/sites/${site}/members/${encodeURIComponent(member.user!)}`, json('PUT', { role: 'viewer' }), owner)).status).toBe(201);
    // Checked again at every delivery, rather than once API_TOKEN_CHECK_SECONDS (30 s) have passed.
    const everyDelivery = { API_TOKEN_CHECK_SECONDS: '0' };
    const live = new Subscriber(await authorizedWith(everyDelivery, `/v2/sites/${site}/events`, {}, member));
    expect(live.response.status).toBe(200);
    const upgraded = await authorizedWith(everyDelivery, `/v2/sites/${site}/events`, { headers: { upgrade: 'websocket' } }, member);
    expect(upgraded.status).toBe(101);
    const socket = upgraded.webSocket!;
    const messages: string[] = [];
    const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', resolve));
    socket.addEventListener('message', (message) => messages.push((JSON.parse(message.data as string) as { event: string }).event));
    socket.accept();

    expect((await deploy(site, { 'index.html': 'v2' }, undefined, owner)).status).toBe(200);
    await live.until(() => live.events.some((event) => event.event === 'site-deploy'));
    // The removal is itself an event of the site: the first the stream checks and withholds.
    expect((await authorized(`/v2/sites/${site}/members/${encodeURIComponent(member.user!)}`, { method: 'DELETE' }, owner)).status).toBe(204);
    await live.ended;
    expect(live.events.map((event) => event.event)).toEqual(['site-deploy']);
    const close = await closed;
    expect(close.code).toBe(1008);
    expect(messages).toContain('site-deploy');
    expect(messages).not.toContain('member-remove');
  });

  it('refuses whoever may not read the site', async () => {
    expect((await authorized(`/v2/sites/${domain}/events`, {}, { user: 'github|site-stream-stranger' })).status).toBe(403);
    expect((await authorized('/v2/sites/no-such-site.example/events', {}, owner)).status).toBe(404);
  });
});

describe('a site stream carries what its reader may see', () => {
  const policy = { repository: 'octo/stream-site', repositoryId: 4242, repositoryOwnerId: 77, workflow: 'deploy.yml' };
  const dataOf = (subscriber: Subscriber, type: string) => subscriber.events.filter((event) => event.event === type).map((event) => JSON.parse(event.data) as Record<string, unknown>);

  it("replays only the current claim's events: a domain claimed again shows its new owner nothing of the previous one's", async () => {
    const site = 'site-stream-reclaimed.example';
    const next: TokenOptions = { user: 'github|site-stream-next-owner' };
    const service = new Subscriber(await authorized('/v2/events', {}, { scope: 'global_read' }));
    try {
      expect((await deploy(site, { 'index.html': 'first owner' }, undefined, owner)).status).toBe(200);
      expect((await authorized(`/v2/sites/${site}/members/${encodeURIComponent(viewer.user!)}`, json('PUT', { role: 'viewer' }), owner)).status).toBe(201);
      expect((await authorized(`/v2/sites/${site}/trust/github`, json('PUT', policy), owner)).status).toBe(201);
      const operator: TokenOptions = { user: 'github|site-stream-operator', scope: 'admin' };
      expect((await authorized(`/v2/sites/${site}/suspension`, json('PUT', { reason: 'Reported' }), operator)).status).toBe(201);
      expect((await authorized(`/v2/sites/${site}`, { method: 'DELETE' }, operator)).status).toBe(200);
      // The first claim's history is whole before the next claim begins.
      await service.until(() => service.of([site]).some((event) => event.event === 'site-delete'));
      expect(service.of([site]).map((event) => event.event)).toEqual(['site-deploy', 'member-add', 'trust-change', 'site-suspend', 'site-delete']);
    } finally {
      await service.close();
    }
    expect((await deploy(site, { 'index.html': 'next owner' }, undefined, next)).status).toBe(200);
    const replayed = new Subscriber(await authorized(`/v2/sites/${site}/events?since=0`, {}, next));
    try {
      await replayed.until(() => replayed.events.some((event) => event.event === 'site-deploy'));
      expect(types(replayed)).toEqual([['site-deploy', site]]);
      expect(replayed.raw).not.toContain(viewer.user!);
      expect(replayed.raw).not.toContain('octo/stream-site');
      expect(replayed.raw).not.toContain('Reported');
    } finally {
      await replayed.close();
    }
  });

  it('ends once its claim does: a domain unpublished and claimed again is another stream, for global_read too', async () => {
    const site = 'site-stream-claim-ends.example';
    const reader: TokenOptions = { user: 'github|site-stream-global-reader', scope: 'global_read' };
    expect((await deploy(site, { 'index.html': 'first claim' }, undefined, owner)).status).toBe(200);
    const open = new Subscriber(await authorizedWith({ API_TOKEN_CHECK_SECONDS: '1' }, `/v2/sites/${site}/events`, {}, reader));
    expect(open.response.status).toBe(200);
    expect((await authorized(`/v2/sites/${site}`, { method: 'DELETE' }, owner)).status).toBe(200);
    const next = await deploy(site, { 'index.html': 'next claim' }, undefined, owner);
    expect(next.status).toBe(200);
    const { deploymentId } = await next.json<{ deploymentId: string }>();
    await open.ended;
    expect(open.raw).not.toContain(deploymentId);
  });

  it("gives a member trust-change events without the policy GET …/trust/github refuses them, replayed or pushed; its owner the policy", async () => {
    const site = 'site-stream-trust.example';
    const deployer: TokenOptions = { user: 'github|site-stream-trust-deployer' };
    expect((await deploy(site, { 'index.html': 'trusted' }, undefined, owner)).status).toBe(200);
    for (const [member, role] of [[viewer, 'viewer'], [deployer, 'deployer']] as const) {
      expect((await authorized(`/v2/sites/${site}/members/${encodeURIComponent(member.user!)}`, json('PUT', { role }), owner)).status).toBe(201);
      expect((await authorized(`/v2/sites/${site}/trust/github`, {}, member)).status).toBe(403);
    }
    const pushed = await authorized(`/v2/sites/${site}/events`, { headers: { upgrade: 'websocket' } }, viewer);
    expect(pushed.status).toBe(101);
    const socket = pushed.webSocket!;
    const messages: { event: string; data: Record<string, unknown> }[] = [];
    let wake = () => {};
    socket.addEventListener('message', (message) => {
      messages.push(JSON.parse(message.data as string));
      wake();
    });
    socket.accept();
    expect((await authorized(`/v2/sites/${site}/trust/github`, json('PUT', policy), owner)).status).toBe(201);

    const streams = await Promise.all([owner, viewer, deployer].map(async (as) => new Subscriber(await authorized(`/v2/sites/${site}/events?since=0`, {}, as))));
    try {
      for (const stream of streams) await stream.until(() => stream.events.some((event) => event.event === 'trust-change'));
      const [ownSeen, viewerSeen, deployerSeen] = streams.map((stream) => dataOf(stream, 'trust-change'));
      expect(ownSeen).toEqual([{ type: 'trust-change', domain: site, provider: 'github', policy: { ...policy, repositoryId: '4242', repositoryOwnerId: '77', workflow: '.github/workflows/deploy.yml', ref: null, environment: null, eventName: null } }]);
      expect(viewerSeen).toEqual([{ type: 'trust-change', domain: site, provider: 'github' }]);
      expect(deployerSeen).toEqual(viewerSeen);
      while (!messages.some((message) => message.event === 'trust-change')) await new Promise<void>((resolve) => (wake = resolve));
      expect(messages.find((message) => message.event === 'trust-change')!.data).toEqual({ type: 'trust-change', domain: site, provider: 'github' });
    } finally {
      socket.close();
      await Promise.all(streams.map((stream) => stream.close()));
    }
  });
});
