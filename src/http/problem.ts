/**
 * RFC 9457 problem details. Every error the service answers is one of the kinds below,
 * thrown as a `Problem` and rendered as `application/problem+json` by the app's error handler.
 */
const kinds = {
  'invalid-domain': { status: 400, title: 'Invalid domain' },
  'domain-not-claimable': { status: 400, title: 'Domain cannot be claimed' },
  'invalid-configuration': { status: 400, title: 'Configuration is not valid' },
  'invalid-path': { status: 400, title: 'Invalid file path' },
  'invalid-request': { status: 400, title: 'Invalid request' },
  'invalid-rules-file': { status: 400, title: 'Rules file cannot be read' },
  unauthorized: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Forbidden' },
  'insufficient-scope': { status: 403, title: 'Insufficient scope' },
  'quota-exceeded': { status: 403, title: 'Quota exceeded' },
  'site-suspended': { status: 403, title: 'Site suspended' },
  'user-suspended': { status: 403, title: 'User suspended' },
  'claim-mismatch': { status: 403, title: 'ID token claim does not match' },
  'domain-proof-required': { status: 403, title: 'Proof of domain control required' },
  'not-found': { status: 404, title: 'Not found' },
  'site-not-found': { status: 404, title: 'Site not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  'base-not-kept': { status: 409, title: 'Base deployment not kept' },
  gone: { status: 410, title: 'Gone' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'uri-too-long': { status: 414, title: 'URI too long' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'request-header-too-large': { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal server error' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemKind = keyof typeof kinds;

/** A JSON Pointer into the request body and what is wrong there. */
export interface ProblemPointer {
  pointer: string;
  message: string;
}

/** A line of a text file sent (`_redirects` line 3) and what is wrong there. */
export interface ProblemLine {
  file: string;
  line: number;
  message: string;
}

export interface ProblemOptions {
  /** Further members of the problem object, e.g. `limit` and `value` for a 413. */
  extensions?: Record<string, unknown>;
  errors?: (ProblemPointer | ProblemLine)[];
  headers?: Record<string, string>;
}

/** A problem as plain data, to cross a Durable Object RPC boundary (class instances do not). */
export interface ProblemData {
  kind: ProblemKind;
  detail: string;
  options: ProblemOptions;
}

export class Problem extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly options: ProblemOptions = {},
  ) {
    super(detail);
    this.name = 'Problem';
    this.status = kinds[kind].status;
    this.title = kinds[kind].title;
  }

  static from(data: ProblemData): Problem {
    return new Problem(data.kind, data.detail, data.options);
  }

  toData(): ProblemData {
    return { kind: this.kind, detail: this.detail, options: this.options };
  }

  toResponse(): Response {
    const body = {
      type: `/problems/${this.kind}`,
      title: this.title,
      status: this.status,
      detail: this.detail,
      ...this.options.extensions,
      ...(this.options.errors ? { errors: this.options.errors } : {}),
    };
    const headers = new Headers(this.options.headers);
    headers.set('content-type', 'application/problem+json');
    return new Response(JSON.stringify(body), { status: this.status, headers });
  }
}
