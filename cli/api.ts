import { CliError, type ErrorKind } from './errors.ts';
import { type BodyWriter, streamRequest } from './upload.ts';
import { version } from './version.ts';

export interface Credentials {
  /** The API's origin, e.g. `https://api.example.net`, without a trailing slash. */
  origin: string;
  token: string;
}

interface ProblemDetails {
  title?: unknown;
  detail?: unknown;
  errors?: unknown;
}

/** The API over HTTP: the bearer token on every request, and every non-2xx answer thrown as a `CliError`. */
export class ApiClient {
  readonly origin: string;
  readonly #token: string;

  constructor(credentials: Credentials) {
    this.origin = credentials.origin;
    this.#token = credentials.token;
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = this.#headers(init.headers);
    return this.#answer(() => fetch(`${this.origin}${path}`, { ...init, headers }));
  }

  /** Sends a body produced chunk by chunk (see upload.ts): deploys and file uploads. */
  async upload(path: string, method: string, headers: Record<string, string>, body: BodyWriter): Promise<Response> {
    const allHeaders = Object.fromEntries(this.#headers(headers));
    return this.#answer(() => streamRequest(new URL(`${this.origin}${path}`), method, allHeaders, body));
  }

  #headers(init: RequestInit['headers']): Headers {
    const headers = new Headers(init);
    headers.set('authorization', `Bearer ${this.#token}`);
    headers.set('user-agent', `sitehost-cli/${version}`);
    if (!headers.has('accept')) headers.set('accept', 'application/json, application/problem+json');
    return headers;
  }

  async #answer(send: () => Promise<Response>): Promise<Response> {
    let response: Response;
    try {
      response = await send();
    } catch (error) {
      throw unreachable(error, this.origin);
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    return (await (await this.fetch(path, init)).json()) as T;
  }
}

/** `/v2/sites/<domain>` with the domain as one encoded path segment. */
export function sitePath(domain: string, suffix = ''): string {
  return `/v2/sites/${encodeURIComponent(domain)}${suffix}`;
}

/** A failed request: a local error raised while writing the body, or the server is unreachable. */
function unreachable(error: unknown, origin: string): Error {
  if (error instanceof CliError) return error;
  // fetch wraps the system error in a TypeError's cause; node:http rejects with it directly.
  const cause = error instanceof TypeError && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof CliError) return cause;
  const reason = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : String(cause);
  return new CliError('server', `Could not reach ${origin}: ${reason}.`, { cause: error });
}

function kindOf(response: Response): ErrorKind {
  const { status } = response;
  if (status === 401) return 'auth';
  if (status === 403) {
    // RFC 6750: a token that lacks a scope is an auth problem, not someone else's site.
    return /error="?insufficient_scope/.test(response.headers.get('www-authenticate') ?? '') ? 'auth' : 'conflict';
  }
  if (status === 404) return 'not-found';
  if (status === 409 || status === 412 || status === 423) return 'conflict';
  if (status >= 500 || status === 408 || status === 429) return 'server';
  return 'usage';
}

/** The server's problem title and detail (and schema pointers) in one line. */
async function errorOf(response: Response): Promise<CliError> {
  const problem = await problemOf(response);
  const title = typeof problem?.title === 'string' ? problem.title : response.statusText || 'Request failed';
  const detail = typeof problem?.detail === 'string' ? problem.detail : '';
  const pointers = Array.isArray(problem?.errors)
    ? problem.errors
        .filter((error): error is { pointer: string; message: string } => typeof error?.message === 'string')
        .map((error) => `${error.pointer || '/'} ${error.message}`)
    : [];
  const text = [title, detail].filter(Boolean).join(': ') + (pointers.length ? ` (${pointers.join('; ')})` : '');
  return new CliError(kindOf(response), `${text} [HTTP ${response.status}]`, { status: response.status });
}

async function problemOf(response: Response): Promise<ProblemDetails | undefined> {
  if (!/json/i.test(response.headers.get('content-type') ?? '')) {
    await response.body?.cancel();
    return undefined;
  }
  try {
    const body: unknown = await response.json();
    return typeof body === 'object' && body !== null ? (body as ProblemDetails) : undefined;
  } catch {
    return undefined;
  }
}
