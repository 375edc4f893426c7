// The protection check's own CPU per request, for bench/serve to print beside its measured
// protected ÷ open ratio: what protection alone would take off it. Runs the service's own gate
// (src/serving/protection-gate.ts, bundled with esbuild: ./bundled.mjs) in this Node process,
// whose V8 is the one workerd embeds: for a members-only host and a member's share-link grant
// cookie, what a request to a protected host does that an open one's does not, from reading the
// host's access to making the answer private.
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { median } from '../statistics.mjs';
import { importBundled } from './bundled.mjs';

/**
 * µs of CPU per request the check takes beyond an open host's: `remembered`, a member whose grant
 * the isolate verified before (every request but an isolate's first of that cookie); `verified`,
 * a grant seen for the first time (one HMAC-SHA-256 verification and a JSON parse). Each the
 * median of `rounds` rounds of `perRound` requests (a tenth of them for new grants, each signed
 * beforehand).
 */
export async function protectionCheckCost({ rounds, perRound }) {
  const gate = await importBundled(`export { admit, hostAccessOf, privately } from './src/serving/protection-gate';
export { grantKey } from './src/serving/grant-key';
export { signGrant } from './src/protection/grant';
export { grantEpoch } from './src/protection/site-protection';
export { parseRequestPath } from './src/http/request-path';`);
  // The local service's settings (wrangler.toml's vars) with a secret of its own.
  const { vars } = parse(readFileSync(new URL('../../wrangler.toml', import.meta.url), 'utf8'));
  const env = { ...vars, AUTH_SECRET: 'bench-protection-cost-secret-of-32-bytes-or-more' };
  const host = 'bench-protected.example';
  const created = Date.now() - 86_400_000;
  const protection = { previews: 'members', site: 'members', password: null, epoch: 1 };
  const sites = { open: { created, protection: { ...protection, site: 'public', previews: 'public' } }, protected: { created, protection } };
  const url = new URL(`http://${host}/`);
  const path = gate.parseRequestPath(url.pathname);
  const key = await gate.grantKey(env);
  const grant = (n) => gate.signGrant(key, { host, expires: Math.floor(Date.now() / 1000) + 3600, epoch: gate.grantEpoch(created, protection), kind: 'link', path: `/${n}` });
  const requestWith = (token) => new Request(url, { headers: { cookie: `sitehost_grant=${token}`, 'user-agent': 'wrk' } });
  // What both hosts do (their access from the live record, the gate), and what only a protected one adds (the private answer).
  const serve = async (site, request) => {
    const admission = await gate.admit(request, url, env, gate.hostAccessOf(env, site, host, false), path);
    if ('answer' in admission) throw new Error(`the gate refused the bench's member: ${admission.answer.status}`);
    const response = new Response('', { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=0, must-revalidate', vary: 'Accept-Encoding' } });
    if (admission.private) gate.privately(response, 'Cookie');
  };
  const member = requestWith(await grant(0));
  const newPerRound = Math.ceil(perRound / 10);
  const fresh = await Promise.all(Array.from({ length: rounds * newPerRound }, (_, n) => grant(n + 1)).map(async (token) => requestWith(await token)));
  const timed = async (site, requestOf, count = perRound) => {
    const perRequest = [];
    for (let round = 0; round < rounds; round++) {
      const started = process.cpuUsage();
      for (let n = 0; n < count; n++) await serve(site, requestOf(round * count + n));
      const { user, system } = process.cpuUsage(started);
      perRequest.push((user + system) / count);
    }
    return median(perRequest);
  };
  // Warm-up: V8 optimises the gate before it is timed.
  await timed(sites.protected, () => member);
  await timed(sites.open, () => member);
  const open = await timed(sites.open, () => member);
  return { remembered: (await timed(sites.protected, () => member)) - open, verified: (await timed(sites.protected, (n) => fresh[n], newPerRound)) - open };
}
