/**
 * One emulated edge location for `npm run bench:edge`, in the bench only: the service's own
 * Worker, with every call that leaves the location (the site's coordinator, R2, D1) delayed
 * by BENCH_RTT_MS and counted. Each location is a Worker of its own, so its isolate keeps its
 * own memory, as a location far from the others does.
 *
 * With BENCH_RTT_MS above 0, each response carries `x-bench-remote-calls` and `x-bench-remote-ms`: the round trips the
 * request waited for before its answer. `GET http://bench.stats/` answers this location's
 * counters, background calls (after the response) included.
 */
import service from '../../src/index';
import type { Env } from '../../src/platform/env';
import { settingsOf } from '../../src/platform/settings';
import { siteDomainOf } from '../../src/common/site-url';
import { serveSite } from '../../src/serving/serve';
import { countServed } from '../../src/traffic/counting';

export { CloudflareAccount, EventLog, SiteCoordinator, SiteTraffic, VisitorSalt } from '../../src/index';

interface BenchEnv extends Env {
  BENCH_RTT_MS: string;
  BENCH_LOCATION: string;
}

/**
 * Coordinator calls per domain, and every remote call, since the location started; for traffic
 * analytics (bench/analytics), D1 statements, coordinator calls, traffic object calls, the visitor
 * secret's asks, and the traffic queue's sends and messages.
 */
const totals = { coordinatorCalls: new Map<string, number>(), remoteCalls: 0, d1Statements: 0, objectCalls: 0, trafficObjectCalls: 0, saltAsks: 0, trafficSends: 0, trafficMessages: 0 };

/** What one request waited for. */
class Meter {
  calls = 0;
  waitedMs = 0;
  #open = true;

  constructor(readonly rttMs: number) {}

  /** A round trip: the wait is charged to the request while it is still open. */
  async roundTrip(): Promise<void> {
    totals.remoteCalls++;
    const started = Date.now();
    await scheduler.wait(this.rttMs);
    if (this.#open) {
      this.calls++;
      this.waitedMs += Date.now() - started;
    }
  }

  close(): void {
    this.#open = false;
  }
}

/** `target` with each named method delayed by a round trip first. */
function remote<T extends object>(target: T, methods: readonly string[], meter: Meter): T {
  return new Proxy(target, {
    get(object, name) {
      const value = Reflect.get(object, name);
      if (typeof name !== 'string' || !methods.includes(name) || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(object) : value;
      }
      return async (...args: unknown[]) => {
        await meter.roundTrip();
        return value.apply(object, args);
      };
    },
  });
}

/** A D1 statement whose queries pay a round trip; `batch` takes the real statements, so they are patched, not wrapped. */
function remoteStatement(statement: D1PreparedStatement, meter: Meter): D1PreparedStatement {
  const bind = statement.bind.bind(statement);
  statement.bind = (...values: unknown[]) => remoteStatement(bind(...values), meter);
  for (const method of ['first', 'all', 'run', 'raw'] as const) {
    const query = (statement[method] as (...args: unknown[]) => Promise<unknown>).bind(statement);
    (statement as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      await meter.roundTrip();
      return query(...args);
    };
  }
  return statement;
}

function withRemoteCalls(env: BenchEnv, meter: Meter): Env {
  const sites = env.SITES;
  const countCall = (domain: string) => totals.coordinatorCalls.set(domain, (totals.coordinatorCalls.get(domain) ?? 0) + 1);
  return {
    ...env,
    FILES: remote(env.FILES, ['get', 'head', 'put', 'list', 'delete', 'createMultipartUpload'], meter),
    DB: new Proxy(env.DB, {
      get(db, name) {
        if (name === 'prepare') return (query: string) => (totals.d1Statements++, remoteStatement(db.prepare(query), meter));
        const value = Reflect.get(db, name);
        if (typeof value !== 'function') return value;
        if (name !== 'batch' && name !== 'exec') return value.bind(db);
        return async (...args: unknown[]) => {
          await meter.roundTrip();
          return value.apply(db, args);
        };
      },
    }),
    SITES: new Proxy(sites, {
      get(namespace, name) {
        if (name !== 'get') return Reflect.get(namespace, name).bind(namespace);
        return (id: DurableObjectId) => {
          const stub = namespace.get(id);
          return new Proxy(stub, {
            get(object, method) {
              if (method === 'then' || typeof method !== 'string') return undefined;
              return async (...args: unknown[]) => {
                totals.objectCalls++;
                countCall(typeof args[0] === 'string' ? args[0] : '?');
                await meter.roundTrip();
                return (object as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!(...args);
              };
            },
          });
        };
      },
    }),
    VISITOR_SALT: counted(env.VISITOR_SALT, () => totals.saltAsks++),
    SITE_TRAFFIC: counted(env.SITE_TRAFFIC, () => totals.trafficObjectCalls++),
    TRAFFIC: {
      send: (body, options) => ((totals.trafficSends++, totals.trafficMessages++), env.TRAFFIC.send(body, options)),
      sendBatch: (messages, options) => ((totals.trafficSends++, (totals.trafficMessages += [...messages].length)), env.TRAFFIC.sendBatch(messages, options)),
    } as Queue<unknown>,
  };
}

/** A Durable Object namespace whose stubs call `onCall` at each call. */
function counted<T extends object>(namespace: T, onCall: () => void): T {
  return new Proxy(namespace, {
    get(object, name) {
      if (name !== 'get') return (Reflect.get(object, name) as (...args: unknown[]) => unknown).bind(object);
      return (id: DurableObjectId) =>
        new Proxy((object as DurableObjectNamespace).get(id), {
          get(stub, method) {
            if (method === 'then' || typeof method !== 'string') return undefined;
            return (...args: unknown[]) => (onCall(), (stub as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!(...args));
          },
        });
    },
  });
}

/**
 * For bench/analytics, counting's own CPU apart from serving's: makes `n` requests like the cost
 * part's (a new visitor each, 13 user agents) and a page's response for each, and with
 * `counting=1` counts each one as serving does (countServed), all in one go; the bench reads
 * workerd's CPU time around it, with and without counting.
 */
function countMany(url: URL, env: Env, ctx: ExecutionContext): Response {
  const n = Number(url.searchParams.get('n'));
  const first = Number(url.searchParams.get('first'));
  const counting = url.searchParams.get('counting') === '1';
  const body = '<p>Counted, not tracked.</p>'.repeat(60);
  const counted = { site: { domain: 'cost.example', claim: 1 }, host: 'live' as const, deployment: 'bench' };
  for (let i = first; i < first + n; i++) {
    const request = new Request('http://cost.example/', {
      headers: { 'cf-connecting-ip': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 'user-agent': `Mozilla/5.0 (bench ${i % 13})` },
    });
    const response = new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    const requestUrl = new URL(request.url);
    if (counting) countServed(env, ctx, request, requestUrl, counted, { response, bytes: body.length });
  }
  return new Response(null, { status: 204 });
}

/** The isolate's one env when no round trip is charged. */
let unmeteredEnv: Env | undefined;

export default {
  async fetch(request, env, ctx) {
    const { hostname } = new URL(request.url);
    if (hostname === 'bench.stats') return Response.json({ location: env.BENCH_LOCATION, ...totals, coordinatorCalls: Object.fromEntries(totals.coordinatorCalls) });
    // bench/analytics: a batch as an isolate sends them, onto the traffic queue; and what a site's traffic object stores.
    if (hostname === 'bench.traffic') return env.TRAFFIC.send(await request.json(), { contentType: 'json' }).then(() => new Response(null, { status: 204 }));
    if (hostname === 'bench.count') return countMany(new URL(request.url), env, ctx);
    if (hostname === 'bench.traffic-size') return Response.json(await env.SITE_TRAFFIC.get(env.SITE_TRAFFIC.idFromName(new URL(request.url).pathname.slice(1))).size());
    const rttMs = Number(env.BENCH_RTT_MS);
    const url = new URL(request.url);
    // With round trips to charge, each request meters its own. Without (bench/analytics), one
    // env for the isolate, as production has: a new env object per request would have the
    // service parse every setting again (settingsOf parses once per env), a tenth of a request.
    const meter = rttMs === 0 ? undefined : new Meter(rttMs);
    const remoteEnv = meter ? withRemoteCalls(env, meter) : (unmeteredEnv ??= withRemoteCalls(env, new Meter(0)));
    const response = settingsOf(env).apiHostnames.includes(url.hostname)
      ? await service.fetch!(request as Request<unknown, IncomingRequestCfProperties>, remoteEnv, ctx)
      : await serveSite(request, url, remoteEnv, ctx, siteDomainOf(url.hostname), await caches.open(`loc${env.BENCH_LOCATION}`));
    if (!meter) return response;
    meter.close();
    const headers = new Headers(response.headers);
    headers.set('x-bench-remote-calls', String(meter.calls));
    headers.set('x-bench-remote-ms', String(meter.waitedMs));
    return new Response(response.body, { status: response.status, headers });
  },
  queue: service.queue,
} satisfies ExportedHandler<BenchEnv>;
