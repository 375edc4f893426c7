/** A zone's custom hostnames (Cloudflare for SaaS) in Cloudflare's REST API (v4), called through a `ZoneApi` (src/cloudflare-api/). */
import { CloudflareApiError, type ZoneApi, type ZoneCall } from '../../cloudflare-api/zone-api';

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

/** The HTTP status Cloudflare gives a hostname that is already a custom hostname of the zone. */
const conflict = 409;
const notFound = 404;
/** Cloudflare recommends HTTP validation; it completes once the hostname reaches the zone. */
const sslSettings = { method: 'http', type: 'dv' } as const;

export class CustomHostnames {
  constructor(private readonly zone: ZoneApi) {}

  #call<T>(method: ZoneCall['method'], path: string, body?: unknown): Promise<T> {
    return this.zone<T>({ method, path: `/custom_hostnames${path}`, ...(body === undefined ? {} : { body }) });
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
