/**
 * One call on a zone of Cloudflare's REST API (v4), and what its answer means. The service makes
 * every call through the account's budget (./account.ts); `directZoneApi` is what that budget
 * itself sends with, and what tests replaying Cloudflare's recorded answers use.
 */

export interface ZoneCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below `/zones/<zone id>`, e.g. `/purge_cache`. */
  path: string;
  body?: unknown;
}

/**
 * Cloudflare answered an error, `success: false` or nothing (status 0); `codes` are its numeric
 * error codes (e.g. 1406, a duplicate hostname). `retryAfterSeconds` comes with a refusal for the
 * rate limit: Cloudflare's own 429, or the account's budget holding the call back.
 */
export class CloudflareApiError extends Error {
  override name = 'CloudflareApiError';

  constructor(
    readonly status: number,
    readonly codes: number[],
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** An answer as data, so that it crosses RPC whole (an error's own fields do not). */
export type ZoneAnswer<T = unknown> =
  | { ok: true; result: T }
  | { ok: false; status: number; codes: number[]; message: string; retryAfterSeconds?: number };

/** A zone's API as the service calls it: the call's result, or a thrown `CloudflareApiError`. */
export type ZoneApi = <T>(call: ZoneCall) => Promise<T>;

export interface ZoneApiOptions {
  zoneId: string;
  apiToken: string;
  /** Injected so tests can replay recorded answers, or a bench can answer as a stand-in; defaults to the global fetch. */
  fetch?: typeof fetch;
  baseUrl?: string;
}

interface Envelope<T> {
  success: boolean;
  errors: { code: number; message: string }[];
  result: T;
}

export const tooManyRequests = 429;

/** Sends `call` and reads Cloudflare's envelope; never throws: a call that got no answer is status 0. */
export async function sendZoneCall<T>(options: ZoneApiOptions, call: ZoneCall): Promise<ZoneAnswer<T>> {
  const { zoneId, apiToken, baseUrl = 'https://api.cloudflare.com/client/v4', fetch: send = (input, init) => fetch(input, init) } = options;
  let response: Response;
  try {
    response = await send(`${baseUrl}/zones/${zoneId}${call.path}`, {
      method: call.method,
      headers: { authorization: `Bearer ${apiToken}`, ...(call.body ? { 'content-type': 'application/json' } : {}) },
      ...(call.body ? { body: JSON.stringify(call.body) } : {}),
    });
  } catch (error) {
    return { ok: false, status: 0, codes: [], message: `Cloudflare API: no answer (${error instanceof Error ? error.message : String(error)})` };
  }
  const envelope = (await response.json().catch(() => null)) as Envelope<T> | null;
  if (response.ok && envelope?.success) return { ok: true, result: envelope.result };
  const errors = envelope?.errors ?? [];
  const detail = errors.map((error) => `${error.message} (${error.code})`).join('; ') || `HTTP ${response.status}`;
  const retryAfter = response.status === tooManyRequests ? retryAfterSeconds(response.headers.get('retry-after'), Date.now()) : undefined;
  return {
    ok: false,
    status: response.status,
    codes: errors.map((error) => error.code),
    message: `Cloudflare API: ${detail}`,
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
  };
}

/** `Retry-After` as seconds from `now` (RFC 9110: delay-seconds or an HTTP-date); undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The result of an answer, or its refusal thrown. */
export function resultOf<T>(answer: ZoneAnswer<T>): T {
  if (answer.ok) return answer.result;
  throw new CloudflareApiError(answer.status, answer.codes, answer.message, answer.retryAfterSeconds);
}

/** Calls straight to Cloudflare, outside the account's budget. */
export function directZoneApi(options: ZoneApiOptions): ZoneApi {
  return async <T>(call: ZoneCall) => resultOf(await sendZoneCall<T>(options, call));
}
