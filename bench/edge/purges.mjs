// The purge half of `npm run bench:edge`: changes at an account-wide rate, each a configuration
// edit visitors see (the header `x-version`), whose purges reach the zone API stand-in through the
// account object; what that costs in API requests, and how soon after each change's 200 every
// location serves it (bench/edge/run.mjs prints it).
import { percentile, sleep, nextGapMs, visit } from './serving.mjs';

/** A measured change that no location serves after this long is counted as never arriving. */
const giveUpMs = 70_000;

/**
 * Every location serves `domain` at `version` or later: when the last one first did
 * (performance.now()), or undefined on giving up. How late each poll's injected round trips
 * ended (the machine's share: a round trip is a timer of exactly `rttMs`) goes into `lags`.
 */
async function everyLocationServes(cluster, domain, version, lags) {
  const deadline = performance.now() + giveUpMs;
  const seen = await Promise.all(
    cluster.workers.map(async (_, location) => {
      while (performance.now() < deadline) {
        const result = await visit(cluster, domain, location);
        lags.push(result.remoteMs - result.remoteCalls * cluster.rttMs);
        if (result.ok && Number(result.version) >= version) return performance.now();
        await sleep(10);
      }
      return undefined;
    }),
  );
  return seen.includes(undefined) ? undefined : Math.max(...seen);
}

/**
 * `count` changes at Poisson arrivals of `rate` per second of Cloudflare's time over the `pool`
 * of sites: at the cluster's time scale k, `rate`/k per second of the machine's. At most
 * `measuredPerSecond` of them (per second of the machine's) go to the `probes` sites, warm in
 * every location beforehand so that the purge is what makes the change visible there, and are
 * measured from their 200 to every location serving them. The machine is measured by a warm
 * request to `idle` every 1/`idleRate` s at a random location (it makes no cross-region call, so
 * its time is the machine's), by a request to the Worker that runs every Durable Object, which
 * needs nothing, and by how late the measured polls' injected round trips ended.
 */
export async function runChanges(cluster, { rate, count, pool, probes, measuredPerSecond, idle, idleRate, versions }) {
  const { timeScale } = cluster;
  const realRate = rate / timeScale;
  await Promise.all(probes.flatMap((domain) => cluster.workers.map((_, location) => visit(cluster, domain, location))));
  const requestsBefore = (await cluster.zoneRequests()).length;
  const measureEvery = Math.max(1, Math.ceil(realRate / measuredPerSecond));
  const propagation = [];
  const answers = { ok: 0, failed: 0, pending: 0 };
  const idleLatencies = [];
  const objectsDelays = [];
  const inFlight = [];
  let unreached = 0;
  const answerTimes = [];
  const lags = [];
  /** Probe sites with a change on its way or being measured: a second one could arrive first and be overwritten. */
  const busy = new Set();
  const change = async (index) => {
    const probe = index % measureEvery === 0 ? probes.find((domain) => !busy.has(domain)) : undefined;
    const domain = probe ?? pool[Math.floor(Math.random() * pool.length)];
    if (probe) busy.add(probe);
    const version = (versions.get(domain) ?? 0) + 1;
    versions.set(domain, version);
    const sent = performance.now();
    const response = await cluster.setVersionHeader(Math.floor(Math.random() * cluster.locations), domain, version).catch(() => Response.error());
    const answered = performance.now();
    answerTimes.push(answered - sent);
    if (response.status !== 200) answers.failed++;
    else answers.ok++;
    if (response.headers.get('sitehost-purge') === 'pending') answers.pending++;
    if (probe && response.status === 200) {
      const everywhere = await everyLocationServes(cluster, domain, version, lags);
      if (everywhere === undefined) unreached++;
      else propagation.push(everywhere - answered);
    }
    busy.delete(probe);
  };

  const began = performance.now();
  let idling = true;
  const idleProbe = (async () => {
    while (idling) {
      await sleep(nextGapMs(idleRate));
      const [result, objectsDelay] = await Promise.all([visit(cluster, idle), cluster.objectsDelayMs().catch(() => NaN)]);
      if (result.ok && result.remoteCalls === 0) idleLatencies.push(result.latencyMs);
      if (Number.isFinite(objectsDelay)) objectsDelays.push(objectsDelay);
    }
  })();
  for (let index = 0, at = began; index < count; index++, at += nextGapMs(realRate)) {
    await sleep(Math.max(0, at - performance.now()));
    inFlight.push(change(index));
  }
  await Promise.all(inFlight);
  const lastAnswered = performance.now();
  idling = false;
  await idleProbe;
  // What the account still sends for these changes (the purges of collected deployments, handed over without waiting).
  await sleep(1_000);
  const requests = (await cluster.zoneRequests()).slice(requestsBefore);
  // In Cloudflare's seconds: the machine's divided by the time scale.
  const seconds = (lastAnswered - began) / 1000 / timeScale;
  propagation.sort((a, b) => a - b);
  idleLatencies.sort((a, b) => a - b);
  answerTimes.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  objectsDelays.sort((a, b) => a - b);
  return {
    rate,
    timeScale,
    count,
    seconds,
    answers,
    requests: requests.length,
    requestsPerSecond: requests.length / seconds,
    busiestSecond: busiestSecond(requests, timeScale),
    refused: requests.filter((request) => request.status === 429).length,
    otherwiseFailed: requests.filter((request) => request.status !== 200 && request.status !== 429).length,
    largestBatch: Math.max(0, ...requests.map((request) => request.urls)),
    measured: propagation.length,
    unreached,
    propagationP50: percentile(propagation, 0.5),
    propagationMax: propagation.length === 0 ? NaN : propagation.at(-1),
    answerP50: percentile(answerTimes, 0.5),
    answerMax: answerTimes.at(-1) ?? NaN,
    idleP50: percentile(idleLatencies, 0.5),
    objectsP50: percentile(objectsDelays, 0.5),
    lagP90: percentile(lags, 0.9),
  };
}

/** The most requests the stand-in saw within one of Cloudflare's seconds (`timeScale` of the machine's). */
function busiestSecond(requests, timeScale) {
  let most = 0;
  for (let first = 0, last = 0; last < requests.length; last++) {
    while (requests[last].at - requests[first].at >= 1000 * timeScale) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
