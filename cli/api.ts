import { clientHeader } from '../src/common/deployment-labels.ts';
import type { DomainProofRecord } from '../src/common/api-types.ts';
import { type ApiError, apiErrorOf } from '../src/common/received-problem.ts';
import { versionHeader } from '../src/common/service-version.ts';
import { CliError, type ErrorKind, UnreachableError } from './errors.ts';
import { withRetries } from './retry.ts';
import { type Answer, type BodyWriter, type ChunkWriter, streamRequest } from './upload.ts';
import { noticeServiceVersion } from './version-check.ts';
import { version } from './version.ts';

export interface Credentials {
  /** The API's origin, e.g. `https://api.example.net`, without a trailing slash. */
  origin: string;
  token: string;
}

/** A JSON answer's body, and the preview URL its `Link: <…>; rel="preview"` names (a deploy that went live). */
export interface Answered<T> {
  body: T;
  previewUrl?: string;
}

/** `answer`'s JSON body and the preview URL it links to, if any. */
export async function answeredOf<T>(answer: Answer): Promise<Answered<T>> {
  // The one link the service sends, as it writes it: by hand, not worth an RFC 8288 parser.
  const preview = /<([^>]*)>\s*;\s*rel="?preview"?/.exec(answer.headers.get('link') ?? '')?.[1];
  return { body: (await answer.json()) as T, ...(preview ? { previewUrl: preview } : {}) };
}

/** A request's method, headers and (text) body. */
export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Safe to send again after a reset or a gateway's 502/503/504 (./retry.ts), as every GET is: the service answers a repeat as it answered the first. */
  repeatable?: true;
}

/** The API over HTTP: the bearer token on every request, and every non-2xx answer thrown as a `CliError`. */
export class ApiClient {
  readonly origin: string;
  readonly #token: string;

  constructor(credentials: Credentials) {
    this.origin = credentials.origin;
    this.#token = credentials.token;
  }

  async request(path: string, options: RequestOptions = {}): Promise<Answer> {
    const send = () => this.#answer(() => this.#send(path, options));
    return isRepeatable(options) ? withRetries(this.origin, send) : send();
  }

  async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return (await (await this.request(path, options)).json()) as T;
  }

  /** `json`, with the preview URL the answer links to. */
  async answered<T>(path: string, options: RequestOptions = {}): Promise<Answered<T>> {
    return answeredOf<T>(await this.request(path, options));
  }

  /** Sends a body produced chunk by chunk (see upload.ts): deploys and file uploads. */
  async upload(path: string, method: string, headers: Record<string, string>, body: BodyWriter): Promise<Answer> {
    return this.#answer(() => streamRequest(new URL(`${this.origin}${path}`), method, this.#headers(headers), body));
  }

  /**
   * A streamed answer whatever its status, through fetch: the event stream, which the CLI and the
   * dashboard read alike (src/common/event-stream.ts). Only an unreachable server is thrown.
   */
  async stream(path: string, headers: Record<string, string>, signal: AbortSignal | undefined): Promise<Response> {
    return fetch(`${this.origin}${path}`, { headers: this.#headers(headers), signal }).catch((error: unknown) => {
      throw unreachable(error, this.origin);
    });
  }

  /**
   * Asks, without a body, what the service would refuse a deploy to `sitePath` for before reading
   * it: the token, its scope, the domain, the site's owner. Such a refusal in the middle of an
   * upload may not reach the client whole: the service closes the connection on the rest of the
   * body, and the reset can discard the answer. A site not hosted yet (404) is fine to deploy;
   * answers whether the site exists.
   */
  async checkDeployable(sitePath: string): Promise<{ siteExists: boolean }> {
    return withRetries(this.origin, async () => {
      const answer = await this.#send(`${sitePath}/info`, {});
      noticeServiceVersion(this.origin, answer.headers.get(versionHeader));
      if (answer.status >= 300 && answer.status !== 404) throw cliErrorOf(await apiErrorOf(answer));
      await answer.body.cancel();
      return { siteExists: answer.status !== 404 };
    });
  }

  /** The answer whatever its status; only an unreachable server is thrown, as a `CliError`. */
  async #send(path: string, { method = 'GET', headers = {}, body }: RequestOptions): Promise<Answer> {
    const all = this.#headers(body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) });
    const writeBody = body === undefined ? undefined : (write: ChunkWriter) => write(Buffer.from(body));
    return streamRequest(new URL(`${this.origin}${path}`), method, all, writeBody).catch((error: unknown) => {
      throw unreachable(error, this.origin);
    });
  }

  #headers(headers: Record<string, string>): Record<string, string> {
    return {
      accept: 'application/json, application/problem+json',
      ...headers,
      // None for the one request that needs none: the ID token exchange (./github-actions.ts).
      ...(this.#token ? { authorization: `Bearer ${this.#token}` } : {}),
      'user-agent': `sitehost-cli/${version}`,
      // The deployments this CLI makes are recorded as the CLI's (docs/design.md, "Deployments").
      [clientHeader]: `cli/${version}`,
    };
  }

  async #answer(send: () => Promise<Answer>): Promise<Answer> {
    let answer: Answer;
    try {
      answer = await send();
    } catch (error) {
      throw unreachable(error, this.origin);
    }
    noticeServiceVersion(this.origin, answer.headers.get(versionHeader));
    if (answer.status < 200 || answer.status >= 300) throw cliErrorOf(await apiErrorOf(answer));
    return answer;
  }
}

function isRepeatable({ method = 'GET', repeatable }: RequestOptions): boolean {
  return repeatable === true || method === 'GET' || method === 'HEAD';
}

/** A failed request: a local error raised while writing the body, or the server is unreachable. */
function unreachable(error: unknown, origin: string): Error {
  if (error instanceof CliError) return error;
  // fetch wraps the system error in a TypeError's cause; node:http rejects with it directly.
  const cause = error instanceof TypeError && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof CliError) return cause;
  const code = cause instanceof Error ? (cause as NodeJS.ErrnoException).code : undefined;
  const reason = code ?? (cause instanceof Error ? cause.message : String(cause));
  return new UnreachableError(`Could not reach ${origin}: ${reason}.`, code, { cause: error });
}

function kindOf(error: ApiError): ErrorKind {
  const { status } = error;
  if (status === 401) return 'auth';
  if (status === 403) {
    // RFC 6750: a token that lacks a scope is an auth problem, not someone else's site.
    return /error="?insufficient_scope/.test(error.headers.get('www-authenticate') ?? '') ? 'auth' : 'conflict';
  }
  if (status === 404) return 'not-found';
  if (status === 409 || status === 412 || status === 423) return 'conflict';
  if (status >= 500 || status === 408 || status === 429) return 'server';
  return 'refused';
}

/**
 * The server's problem title and detail (and schema pointers) in one line, with the exit code of its
 * kind. A claim that waits for proof of control says the record to add and how to check it.
 */
export function cliErrorOf(error: ApiError): CliError {
  const { title, detail, errors = [], record } = error.problem;
  const pointers = errors.map((error) => ('file' in error ? `${error.file} line ${error.line}: ${error.message}` : `${error.pointer || '/'} ${error.message}`));
  const text =
    error.problem.type === '/problems/domain-proof-required' && record
      ? `${title}: ${proofAdvice(record)}`
      : [title, detail].filter(Boolean).join(': ') + (pointers.length ? ` (${pointers.join('; ')})` : '');
  return new CliError(kindOf(error), `${text} [HTTP ${error.status}]`, { status: error.status, cause: error });
}

function proofAdvice(record: DomainProofRecord): string {
  const domain = record.name.slice(record.name.indexOf('.') + 1);
  return (
    `add the DNS record ${record.name} ${record.type} "${record.value}" to prove you control ${domain}, ` +
    `then deploy again once \`sitehost domains proof ${domain}\` says it is verified (a new record shows within minutes)`
  );
}
