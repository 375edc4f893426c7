/** The parts of Cloudflare's REST API (v4) the service uses: a zone's custom hostnames (Cloudflare for SaaS) and its cache purge. */

export interface CustomHostnameCertificate {
  issued_on?: string;
  expires_on?: string;
}

export interface CustomHostname {
  id: string;
  hostname: string;
  /** Hostname ownership: `pending`, `active`, `moved`, `deleted`, `blocked`… */
  status?: string;
  verification_errors?: string[];
  ssl?: {
    /** `initializing`, `pending_validation`, `pending_issuance`, `pending_deployment`, `active`, `*_timed_out`… */
    status?: string;
    validation_errors?: { message: string }[];
    certificates?: CustomHostnameCertificate[];
    expires_on?: string;
  };
}

interface Envelope<T> {
  success: boolean;
  errors: { code: number; message: string }[];
  result: T;
}

/** Cloudflare answered `success: false`; `codes` are its numeric error codes (e.g. 1406, a duplicate hostname). */
export class CloudflareApiError extends Error {
  constructor(
    readonly status: number,
    readonly codes: number[],
    message: string,
  ) {
    super(message);
    this.name = 'CloudflareApiError';
  }
}

/** The HTTP status Cloudflare gives a hostname that is already a custom hostname of the zone. */
const conflict = 409;
const notFound = 404;
/** Cloudflare recommends HTTP validation; it completes once the hostname reaches the zone. */
const sslSettings = { method: 'http', type: 'dv' } as const;

export interface ZoneApiOptions {
  zoneId: string;
  apiToken: string;
  /** Injected so tests can replay recorded responses; defaults to the global fetch. */
  fetch?: typeof fetch;
  baseUrl?: string;
}

export type CustomHostnamesOptions = ZoneApiOptions;

/** One call on the zone (`path` below `/zones/<id>`); a failure, or `success: false`, is thrown as a `CloudflareApiError`. */
async function callZoneApi<T>(options: ZoneApiOptions, method: string, path: string, body?: unknown): Promise<T> {
  const { zoneId, apiToken, baseUrl = 'https://api.cloudflare.com/client/v4', fetch: send = (input, init) => fetch(input, init) } = options;
  const response = await send(`${baseUrl}/zones/${zoneId}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const envelope = (await response.json().catch(() => null)) as Envelope<T> | null;
  if (!response.ok || !envelope?.success) {
    const errors = envelope?.errors ?? [];
    const detail = errors.map((error) => `${error.message} (${error.code})`).join('; ') || `HTTP ${response.status}`;
    throw new CloudflareApiError(response.status, errors.map((error) => error.code), `Cloudflare API: ${detail}`);
  }
  return envelope.result;
}

/** Removes `urls` from the zone's cache in every location (purge by URL). */
export async function purgeUrls(options: ZoneApiOptions, urls: readonly string[]): Promise<void> {
  await callZoneApi(options, 'POST', '/purge_cache', { files: urls });
}

export class CustomHostnames {
  readonly #options: CustomHostnamesOptions;

  constructor(options: CustomHostnamesOptions) {
    this.#options = options;
  }

  #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return callZoneApi(this.#options, method, `/custom_hostnames${path}`, body);
  }

  create(hostname: string): Promise<CustomHostname> {
    return this.#call('POST', '', { hostname, ssl: sslSettings });
  }

  get(id: string): Promise<CustomHostname> {
    return this.#call('GET', `/${encodeURIComponent(id)}`);
  }

  async findByHostname(hostname: string): Promise<CustomHostname | undefined> {
    const found = await this.#call<CustomHostname[]>('GET', `?hostname=${encodeURIComponent(hostname)}`);
    return found.find((candidate) => candidate.hostname === hostname);
  }

  /** Restarts validation after it timed out (Cloudflare's PATCH with the SSL settings). */
  restartValidation(id: string): Promise<CustomHostname> {
    return this.#call('PATCH', `/${encodeURIComponent(id)}`, { ssl: sslSettings });
  }

  async delete(id: string): Promise<void> {
    await this.#call('DELETE', `/${encodeURIComponent(id)}`);
  }

  /** Creates the custom hostname, or finds the existing one when Cloudflare reports a duplicate. */
  async ensure(hostname: string, knownId: string | null): Promise<CustomHostname> {
    if (knownId) {
      try {
        return await this.get(knownId);
      } catch (error) {
        if (!(error instanceof CloudflareApiError && error.status === notFound)) throw error;
      }
    }
    try {
      return await this.create(hostname);
    } catch (error) {
      if (!(error instanceof CloudflareApiError && error.status === conflict)) throw error;
      const existing = await this.findByHostname(hostname);
      if (!existing) throw error;
      return existing;
    }
  }

  /** Deletes it; one already gone is fine. */
  async remove(id: string): Promise<void> {
    try {
      await this.delete(id);
    } catch (error) {
      if (!(error instanceof CloudflareApiError && error.status === notFound)) throw error;
    }
  }
}
