/** What the job runner asks of a certificate authority (ACME) or a managed service (Cloudflare for SaaS). */
export interface IssueRequest {
  domain: string;
  /** The issuer's handle for this domain from an earlier attempt (a Cloudflare custom hostname id). */
  externalId: string | null;
  /** Keeps a handle for the next attempts and for deletion on unpublish. */
  rememberExternalId(externalId: string): Promise<void>;
}

export type IssueOutcome =
  | {
      kind: 'issued';
      issued: number;
      expires: number;
      /** PEM chain and private key; null when the issuer keeps them at its edge. */
      chain: string | null;
      keyPem: string | null;
      externalId: string | null;
    }
  /** Accepted but not done yet (validation in progress): the job is retried later. */
  | { kind: 'waiting'; detail: string };

export interface Issuer {
  readonly name: 'acme' | 'cloudflare';
  /** Throws with a reason a user can act on when this attempt fails. */
  issue(request: IssueRequest): Promise<IssueOutcome>;
  /** Forgets the domain at the issuer, when it holds anything (unpublish). */
  remove(domain: string, externalId: string): Promise<void>;
}
