import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
// wrangler's own local runtime (the version wrangler ships): it reads the R2 state the service left.
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { afterAll, describe, expect, it } from 'vitest';
import { copyMigratedState } from './support/migrated-state';
import { waitFor } from './support/processes';
import { type Service, getFromSite, runCron, startService, token } from './support/service';

/**
 * Crash safety end to end: the runtime is killed (`kill -9` of its process group: npm start,
 * wrangler and workerd) while deploys stream to four domains, right after one of them answered
 * 200 and with the others in flight, and started again on the same persisted state. In the end
 * every committed deployment has exactly one `site-deploy` event, and once the daily sweep has run
 * no object is left that no deployment holds.
 */

const domains = ['crash-a.example', 'crash-b.example', 'crash-c.example', 'crash-d.example'];
/** How long after its round's chosen 200 each kill comes. */
const killDelaysMs = [0, 70, 190];
const kills = killDelaysMs.length;
/** Every deployment is kept, so each committed one is listed; the sweep's grace is 0 (nothing is in flight when it runs). */
const vars = { DEPLOYMENTS_KEPT: '1000', ORPHAN_SWEEP_GRACE_SECONDS: '0' };
const cron = '17 3 * * *';

let persistDir: string;
let service: Service | undefined;

afterAll(async () => {
  await service?.stop();
  if (persistDir) await rm(persistDir, { recursive: true, force: true });
});

interface DeployAnswer {
  status: number;
  deploymentId?: string;
}

/** One deploy of content no other deploy has, so that each deployment stores its own pack. */
async function deployOnce(running: Service, authorization: string, domain: string, content: string): Promise<DeployAnswer> {
  const form = new FormData();
  form.append('directory', new File([`<p>${content}</p>`], 'index.html', { type: 'text/html' }));
  form.append('directory', new File([`${content}\n`.repeat(200)], 'notes.txt', { type: 'text/plain' }));
  const response = await fetch(`${running.origin}/v2/sites/${domain}`, { method: 'PUT', headers: { authorization }, body: form });
  const body = (await response.json()) as { deploymentId?: string };
  return { status: response.status, deploymentId: body.deploymentId };
}

/**
 * Deploys sent to each domain at once. Each asks for the site first, as visitors do: a change to a
 * site asked about lately waits out the records locations may still store before it answers, with
 * the coordinator's lock held, so the other deploys wait for it with their pack and index stored,
 * and a kill leaves them behind for the sweep.
 */
const streamsPerDomain = 4;

/**
 * Deploys to every domain at once, one deploy after another per stream, and kills the runtime
 * `delayMs` after the `killAfter`th deploy answered 200, whatever else is in flight (the delay
 * spreads the kill over the stages of the deploys under way; it waits for nothing). Answers the
 * deployments answered 200, by domain.
 */
async function deployUntilKilled(running: Service, round: number, killAfter: number, delayMs: number): Promise<Map<string, string[]>> {
  const authorization = `Bearer ${await token(running, 'github|crash', 'deploy')}`;
  const answered = new Map<string, string[]>(domains.map((domain) => [domain, []]));
  let answers = 0;
  let killing: Promise<void> | undefined;
  await Promise.all(
    domains.flatMap((domain) => Array.from({ length: streamsPerDomain }, (_, stream) => ({ domain, stream }))).map(async ({ domain, stream }) => {
      for (let n = 0; !killing; n++) {
        let answer: DeployAnswer;
        try {
          await getFromSite(running, domain, '/');
          answer = await deployOnce(running, authorization, domain, `${domain} round ${round} stream ${stream} deploy ${n}`);
        } catch (error) {
          // The connection the kill cut.
          if (killing) return;
          throw error;
        }
        if (killing) return;
        expect(answer.status).toBe(200);
        answered.get(domain)!.push(answer.deploymentId!);
        if (++answers === killAfter) {
          const kill = () => (killing = running.kill());
          if (delayMs === 0) kill();
          else setTimeout(kill, delayMs);
        }
      }
    }),
  );
  await killing;
  return answered;
}

/** Every deployment of `domain` the service keeps (all it committed: none is collected here). */
async function deploymentsOf(running: Service, authorization: string, domain: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
    const response = await fetch(`${running.origin}/v2/sites/${domain}/deployments${query}`, { headers: { authorization } });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { deployments: { id: string }[]; next: string | null };
    ids.push(...page.deployments.map((deployment) => deployment.id));
    cursor = page.next;
  } while (cursor);
  return ids;
}

/** Reads `GET /v2/events?since=0` (the whole log, then live events) until `done` holds of what was read. */
async function replayUntil(running: Service, authorization: string, done: (events: EventSourceMessage[]) => boolean): Promise<EventSourceMessage[]> {
  const response = await fetch(`${running.origin}/v2/events?since=0`, { headers: { authorization } });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  const events: EventSourceMessage[] = [];
  const timeout = setTimeout(() => void reader.cancel(), 30_000);
  try {
    while (!done(events)) {
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error(`The event stream ended (or timed out) after ${events.length} events`);
      events.push(value);
    }
  } finally {
    clearTimeout(timeout);
    await reader.cancel();
  }
  return events;
}

/** The object keys under each of `domains` in the R2 state a stopped service left in `persistDir`. */
async function storedKeys(): Promise<Record<string, string[]>> {
  const runtime = new Miniflare(
    convertV4MiniflareOptions({
      workers: [{ name: 'reader', modules: true, script: 'export default {}', r2Buckets: { FILES: 'sitehost-files' } }],
      // Where `wrangler dev --persist-to` keeps its state.
      resourcePersistencePath: join(persistDir, 'v3'),
    }),
  );
  try {
    const bucket = await runtime.getR2Bucket('FILES');
    const stored: Record<string, string[]> = {};
    for (const domain of domains) {
      const listing = await bucket.list({ prefix: `sites/${domain}/` });
      expect(listing.truncated).toBe(false);
      stored[domain] = listing.objects.map((object) => object.key).sort();
    }
    return stored;
  } finally {
    await runtime.dispose();
  }
}

describe('a runtime killed during a stream of deploys', () => {
  it('logs exactly one event per committed deployment, and after the sweep stores nothing no deployment holds', async () => {
    persistDir = await mkdtemp(join(tmpdir(), 'sitehost-crash-'));
    // The migrated state every service copies: the first start goes straight to wrangler dev, as the restarts do.
    await copyMigratedState(persistDir);
    const answered = new Map<string, string[]>(domains.map((domain) => [domain, []]));
    for (let round = 0; round < kills; round++) {
      service = await startService({ vars, persistDir });
      // A kill at another moment each round: at once after a 200 (its event just announced), then later.
      for (const [domain, ids] of await deployUntilKilled(service, round, 6 + 5 * round, killDelaysMs[round]!)) answered.get(domain)!.push(...ids);
    }

    service = await startService({ vars, persistDir });
    const authorization = `Bearer ${await token(service, 'github|crash', 'deploy global_read')}`;
    // One more deploy per domain settles whatever its coordinator left unsettled, and marks the end of its events.
    const last = new Map<string, string>();
    for (const domain of domains) {
      const answer = await deployOnce(service, authorization, domain, `${domain} after the kills`);
      expect(answer.status).toBe(200);
      last.set(domain, answer.deploymentId!);
    }
    const deployEvents = (events: EventSourceMessage[], domain: string) =>
      events
        .filter((event) => event.event === 'site-deploy')
        .map((event) => JSON.parse(event.data) as { domain: string; deploymentId: string })
        .filter((data) => data.domain === domain)
        .map((data) => data.deploymentId);
    // A coordinator announces its changes in order: once a domain's last deploy is in, every earlier one is.
    const events = await replayUntil(service, authorization, (read) => domains.every((domain) => deployEvents(read, domain).includes(last.get(domain)!)));

    const committed = new Map<string, string[]>();
    for (const domain of domains) {
      const deployments = await deploymentsOf(service, authorization, domain);
      committed.set(domain, deployments);
      // Every deploy answered 200 committed; others (cut by a kill) may have committed too, and are announced all the same.
      expect(deployments).toEqual(expect.arrayContaining([...answered.get(domain)!, last.get(domain)!]));
      const announced = deployEvents(events, domain);
      expect(announced.toSorted()).toEqual(deployments.toSorted());
      expect(new Set(announced).size).toBe(announced.length);
    }
    const ids = events.map((event) => Number(event.id));
    expect(ids).toEqual(ids.toSorted((a, b) => a - b));

    // The daily sweep, as the Cron Trigger runs it; it logs a line when done.
    const sweeps = () => [...service!.output().matchAll(/"message":"Swept sites for objects nothing holds","sites":\d+,"deleted":(\d+)/g)];
    const sweepsBefore = sweeps().length;
    expect((await runCron(service, cron)).status).toBe(200);
    await waitFor(() => sweeps().length > sweepsBefore, 'the sweep', 60_000, [service]);
    const deleted = Number(sweeps().at(-1)![1]);
    for (const domain of domains) expect((await getFromSite(service, domain, '/')).body).toBe(`<p>${domain} after the kills</p>`);
    await service.stop();
    service = undefined;
    const held = Object.fromEntries(
      [...committed].map(([domain, deployments]) => [domain, deployments.flatMap((id) => [`sites/${domain}/deployments/${id}.json`, `sites/${domain}/packs/${id}`]).sort()]),
    );
    expect(await storedKeys()).toEqual(held);

    const count = (byDomain: Map<string, string[]>) => [...byDomain.values()].flat().length;
    console.log(
      `${kills} kills: ${count(committed)} deployments committed (${count(answered)} answered 200 before a kill), each announced once; ` +
        `the sweep deleted ${deleted} objects cut deploys left`,
    );
  }, 280_000);
});
