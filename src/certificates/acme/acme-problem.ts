/** An RFC 8555 §6.7 error document (an RFC 7807 problem) returned by the ACME server. */
export interface AcmeProblemDocument {
  type?: string;
  detail?: string;
  status?: number;
  subproblems?: AcmeProblemDocument[];
}

const urn = 'urn:ietf:params:acme:error:';

/** The ACME server answered with an error, or an object it returned ended `invalid`. */
export class AcmeError extends Error {
  readonly type: string;

  constructor(
    readonly problem: AcmeProblemDocument,
    context: string,
  ) {
    const type = problem.type ?? 'about:blank';
    super(`${context}: ${problem.detail ?? 'no detail given'} (${type.replace(urn, 'acme:')})`);
    this.name = 'AcmeError';
    this.type = type;
  }

  /** RFC 8555 §6.5: a bad nonce is retried with the fresh nonce the error response carries. */
  get isBadNonce(): boolean {
    return this.type === `${urn}badNonce`;
  }

  /** The account the request was signed for is unknown to the server (a test CA restarted, say). */
  get isAccountMissing(): boolean {
    return this.type === `${urn}accountDoesNotExist`;
  }
}
