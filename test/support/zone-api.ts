/**
 * A stand-in for Cloudflare's zone API that enforces its documented limits (docs/serving.md), for
 * the tests of the account's budget and for `npm run bench:edge`:
 *
 * - the global limit: `requestsPerWindow` requests per `windowSeconds` (1,200 per five minutes);
 *   the request over it, and every request for the next `lockoutSeconds` (five minutes), is
 *   refused with 429 and `Retry-After`;
 * - purge by URL: at most `urlsPerRequest` URLs a request (100; 500 on Enterprise), refused with
 *   400 over it; `urlsPerSecond` (800 on Free), a token bucket of one second's URLs, refused with
 *   429 and `Retry-After` past it.
 *
 * It answers `POST /zones/<id>/purge_cache` (calling `onPurge` before it answers, as Cloudflare
 * purges before it accepts) and the custom-hostname calls, in Cloudflare's envelope, and records
 * every request it saw. A fetch handler: pass `standIn.fetch` where a `fetch` is taken.
 */
export interface ZoneLimits {
  requestsPerWindow: number;
  windowSeconds: number;
  lockoutSeconds: number;
  urlsPerRequest: number;
  urlsPerSecond: number;
}

/** Cloudflare's limits on the Free plan. */
export const freePlan: ZoneLimits = { requestsPerWindow: 1200, windowSeconds: 300, lockoutSeconds: 300, urlsPerRequest: 100, urlsPerSecond: 800 };

export interface SeenRequest {
  at: number;
  method: string;
  path: string;
  status: number;
  /** A purge's URLs. */
  urls?: string[];
}

interface StoredHostname {
  id: string;
  hostname: string;
  status: string;
  ssl: { status: string; method: string; type: string };
}

function envelope(result: unknown, status = 200, headers: HeadersInit = {}): Response {
  return Response.json({ success: true, errors: [], messages: [], result }, { status, headers });
}

function refusal(status: number, code: number, message: string, headers: HeadersInit = {}): Response {
  return Response.json({ success: false, errors: [{ code, message }], messages: [], result: null }, { status, headers });
}

export class ZoneApiStandIn {
  readonly seen: SeenRequest[] = [];
  /** Times of the requests the global limit counted, oldest first. */
  readonly #counted: number[] = [];
  #lockedUntil = 0;
  #urlTokens: number;
  #urlTokensAt = Date.now();
  readonly #hostnames = new Map<string, StoredHostname>();

  constructor(
    readonly limits: ZoneLimits,
    private readonly onPurge: (urls: string[]) => Promise<void> = async () => {},
  ) {
    this.#urlTokens = limits.urlsPerSecond;
  }

  /** Another user of the token spent the budget: every call is refused for `seconds`. */
  lockOut(seconds: number): void {
    this.#lockedUntil = Date.now() + seconds * 1000;
  }

  get refused(): SeenRequest[] {
    return this.seen.filter((request) => request.status === 429);
  }

  get purges(): SeenRequest[] {
    return this.seen.filter((request) => request.urls !== undefined);
  }

  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const at = Date.now();
    const request = new Request(input, init);
    const path = new URL(request.url).pathname.replace(/^\/client\/v4\/zones\/[^/]+/, '');
    const body = request.method === 'GET' || request.method === 'DELETE' ? undefined : await request.json<Record<string, unknown>>();
    const urls = path === '/purge_cache' && Array.isArray(body?.files) ? (body.files as string[]) : undefined;
    const response = await this.#answer(at, request, path, body, urls);
    this.seen.push({ at, method: request.method, path, status: response.status, ...(urls ? { urls } : {}) });
    return response;
  };

  async #answer(now: number, request: Request, path: string, body: Record<string, unknown> | undefined, urls: string[] | undefined): Promise<Response> {
    const { requestsPerWindow, windowSeconds, lockoutSeconds, urlsPerRequest, urlsPerSecond } = this.limits;
    if (now < this.#lockedUntil) return this.#tooMany(Math.ceil((this.#lockedUntil - now) / 1000));
    while (this.#counted.length > 0 && this.#counted[0]! <= now - windowSeconds * 1000) this.#counted.shift();
    if (this.#counted.length >= requestsPerWindow) {
      this.#lockedUntil = now + lockoutSeconds * 1000;
      return this.#tooMany(lockoutSeconds);
    }
    this.#counted.push(now);
    if (urls) {
      if (urls.length > urlsPerRequest) return refusal(400, 1000, `A purge takes at most ${urlsPerRequest} URLs; this one had ${urls.length}.`);
      this.#urlTokens = Math.min(urlsPerSecond, this.#urlTokens + ((now - this.#urlTokensAt) / 1000) * urlsPerSecond);
      this.#urlTokensAt = now;
      if (urls.length > this.#urlTokens) return this.#tooMany(Math.ceil((urls.length - this.#urlTokens) / urlsPerSecond));
      this.#urlTokens -= urls.length;
      await this.onPurge(urls);
      return envelope({ id: crypto.randomUUID() });
    }
    return this.#customHostnames(request, path, body);
  }

  #tooMany(seconds: number): Response {
    return refusal(429, 10000, 'Rate limited', { 'retry-after': String(seconds) });
  }

  #customHostnames(request: Request, path: string, body: Record<string, unknown> | undefined): Response {
    const [, collection, id] = path.split('/');
    if (collection !== 'custom_hostnames') return refusal(404, 7003, 'No route for that URI');
    if (request.method === 'POST' && !id) {
      const hostname = String(body?.hostname);
      if ([...this.#hostnames.values()].some((stored) => stored.hostname === hostname)) return refusal(409, 1406, 'Duplicate custom hostname found.');
      const created: StoredHostname = { id: crypto.randomUUID(), hostname, status: 'pending', ssl: { status: 'initializing', method: 'http', type: 'dv' } };
      this.#hostnames.set(created.id, created);
      return envelope(created);
    }
    if (request.method === 'GET' && !id) {
      const hostname = new URL(request.url).searchParams.get('hostname');
      return envelope([...this.#hostnames.values()].filter((stored) => stored.hostname === hostname));
    }
    const stored = this.#hostnames.get(id ?? '');
    if (!stored) return refusal(404, 1436, 'Custom hostname not found.');
    if (request.method === 'DELETE') {
      this.#hostnames.delete(stored.id);
      return envelope({ id: stored.id });
    }
    return envelope(stored);
  }
}
