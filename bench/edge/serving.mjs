// The serving half of `npm run bench:edge`: traffic to sparse sites and one hot site, at random
// locations, the hot site redeployed every `changeSeconds`; what serving costs a visitor far from
// the site's coordinator, R2 and D1 (bench/edge/run.mjs prints it).

/** A site is warm at a location that answered it within this long. */
const warmMs = 60_000;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exponential gaps: Poisson arrivals at `rate` per second. */
export function nextGapMs(rate) {
  return (-Math.log(1 - Math.random()) / rate) * 1000;
}

export function percentile(sorted, share) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

/** Calls `send` at Poisson arrivals of `rate` per second until `until` (performance.now()). */
export async function poisson(rate, until, send) {
  for (let at = performance.now() + nextGapMs(rate); at < until; at += nextGapMs(rate)) {
    await sleep(Math.max(0, at - performance.now()));
    send();
  }
}

/** One request for `domain` at a random location, timed, with the round trips it waited for (bench/edge/location.ts). */
export async function visit(cluster, domain, location = Math.floor(Math.random() * cluster.locations)) {
  const started = performance.now();
  try {
    const response = await cluster.workers[location].fetch(`http://${domain}/`);
    await response.arrayBuffer();
    return {
      location,
      ok: response.status === 200,
      latencyMs: performance.now() - started,
      remoteCalls: Number(response.headers.get('x-bench-remote-calls')),
      remoteMs: Number(response.headers.get('x-bench-remote-ms')),
      version: response.headers.get('x-version'),
    };
  } catch {
    return { location, ok: false, latencyMs: performance.now() - started, remoteCalls: 0, remoteMs: 0, version: null };
  }
}

/**
 * Runs the traffic for `seconds`: `sites` at `siteRate` requests/s each and `hotDomain` (deployed
 * as version 0) at `hotRate`, the hot site redeployed every `changeSeconds` and every location polled until it
 * serves the new content. Answers each request's result (marked warm when its location answered
 * the site in the last minute and since its last change), each change's propagation time, and the
 * hot site's coordinator calls.
 */
export async function runServing(cluster, { sites, siteRate, hotDomain, hotRate, changeSeconds, seconds }) {
  const { workers, locations } = cluster;
  const results = [];
  /** By location and site: when the latest request that location has answered began. */
  const lastServed = new Map();
  /** When each site's last change answered 200; while a change is on its way, Infinity (its purge may come at any moment). */
  const lastChanged = new Map();
  const inFlight = new Set();
  const request = (domain) => {
    const location = Math.floor(Math.random() * locations);
    const key = `${location} ${domain}`;
    // Warm: that location has answered (not merely been asked) a request for the site begun within
    // the last minute and after the site last changed, and no change is on its way: the first
    // request after a change is a cold one by design, one begun before it may have been answered
    // the replaced record, and one begun while it is made may meet its purge.
    const started = performance.now();
    const warm = (lastServed.get(key) ?? -Infinity) > Math.max(started - warmMs, lastChanged.get(domain) ?? -Infinity);
    const done = visit(cluster, domain, location)
      .then((result) => {
        if (result.ok) lastServed.set(key, Math.max(lastServed.get(key) ?? -Infinity, started));
        results.push({ ...result, warm });
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };

  const propagation = [];
  let version = 0;
  const changes = async (until) => {
    while (performance.now() + changeSeconds * 1000 < until) {
      await sleep(changeSeconds * 1000);
      version++;
      lastChanged.set(hotDomain, Infinity);
      await cluster.deploy(version % locations, hotDomain, `<p>version ${version}</p>`);
      const answered = performance.now();
      lastChanged.set(hotDomain, answered);
      const lastSeen = await Promise.all(
        workers.map(async (worker) => {
          for (;;) {
            const body = await (await worker.fetch(`http://${hotDomain}/`)).text();
            if (body.includes(`version ${version}<`)) return performance.now();
            await sleep(5);
          }
        }),
      );
      propagation.push(Math.max(...lastSeen) - answered);
    }
  };

  const coordinatorCalls = async () => {
    const stats = await Promise.all(workers.map((worker) => worker.fetch('http://bench.stats/').then((response) => response.json())));
    return stats.reduce((sum, location) => sum + (location.coordinatorCalls[hotDomain] ?? 0), 0);
  };
  const callsBefore = await coordinatorCalls();
  const began = performance.now();
  const until = began + seconds * 1000;
  await Promise.all([poisson(hotRate, until, () => request(hotDomain)), ...sites.map((domain) => poisson(siteRate, until, () => request(domain))), changes(until)]);
  await Promise.all(inFlight);
  const elapsedSeconds = (performance.now() - began) / 1000;
  return { results, propagation, hotCalls: (await coordinatorCalls()) - callsBefore, elapsedSeconds };
}
