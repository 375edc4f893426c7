import type { DomainProofRecord, LineError, PointerError, ProblemDetails } from './api-types.ts';

/**
 * What an error answer said: its problem's members (and the DNS record a domain's claim waits for),
 * or what HTTP alone tells; `extensions` holds the problem's other members (a 413's `limit` and
 * `value`, a 409's `missing`, the claim's `record` as sent).
 */
export type ReceivedProblem = Pick<ProblemDetails, 'title' | 'status'> &
  Partial<Pick<ProblemDetails, 'type' | 'detail' | 'errors'>> & { record?: DomainProofRecord; extensions?: Record<string, unknown> };

/** An answer's headers, looked up by name: a `Headers`, or the CLI's own over node:http. */
export interface HeaderLookup {
  get(name: string): string | null;
}

/** What `apiErrorOf` reads of an answer: a fetch `Response` has it, and so has the CLI's answer. */
export interface ErrorAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeaderLookup;
  text(): Promise<string>;
  readonly body: { cancel(): Promise<void> } | null;
}

/** An error answer of the API (any status outside 2xx). */
export class ApiError extends Error {
  readonly problem: ReceivedProblem;
  /** The answer's headers: `WWW-Authenticate` tells a missing scope from a bad token. */
  readonly headers: HeaderLookup;

  constructor(problem: ReceivedProblem, headers: HeaderLookup = new Headers()) {
    super(problem.detail ?? problem.title);
    this.name = 'ApiError';
    this.problem = problem;
    this.headers = headers;
  }

  get status(): number {
    return this.problem.status;
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function pointerErrors(value: unknown): (PointerError | LineError)[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter((error): error is Record<string, unknown> => typeof error === 'object' && error !== null && typeof error.message === 'string')
    .map((error) =>
      typeof error.file === 'string' && typeof error.line === 'number'
        ? { file: error.file, line: error.line, message: error.message as string }
        : { pointer: text(error.pointer) ?? '', message: error.message as string },
    );
}

function proofRecord(value: unknown): DomainProofRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, type, value: text } = value as Record<string, unknown>;
  return typeof name === 'string' && type === 'TXT' && typeof text === 'string' ? { name, type, value: text } : undefined;
}

function jsonObject(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The error an answer carries: its problem+json members when it has them; otherwise its status
 * text, and a plain-text body as the detail (a proxy's HTML error page would say nothing
 * readable, so other bodies are discarded unread).
 */
export async function apiErrorOf(response: ErrorAnswer): Promise<ApiError> {
  const { status, headers } = response;
  const title = response.statusText || `HTTP ${status}`;
  const contentType = headers.get('content-type') ?? '';
  if (/json/i.test(contentType)) {
    const { title: bodyTitle, status: _status, type, detail, errors, ...extensions } = jsonObject(await response.text()) ?? {};
    const problem = {
      title: text(bodyTitle) ?? title,
      status,
      type: text(type),
      detail: text(detail),
      errors: pointerErrors(errors),
      record: proofRecord(extensions.record),
      extensions,
    };
    return new ApiError(problem, headers);
  }
  if (/^text\/plain/i.test(contentType)) return new ApiError({ title, status, detail: (await response.text()).trim() || undefined }, headers);
  await response.body?.cancel();
  return new ApiError({ title, status }, headers);
}
