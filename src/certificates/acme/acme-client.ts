import { base64url, calculateJwkThumbprint, exportJWK, FlattenedSign, type JWK } from 'jose';
import { AcmeError, type AcmeProblemDocument } from './acme-problem';

/** RFC 8555 resources the client reads. */
export interface AcmeDirectory {
  newNonce: string;
  newAccount: string;
  newOrder: string;
}

export type AcmeStatus = 'pending' | 'ready' | 'processing' | 'valid' | 'invalid' | 'deactivated' | 'expired' | 'revoked';

export interface AcmeOrder {
  status: AcmeStatus;
  authorizations: string[];
  finalize: string;
  certificate?: string;
  error?: AcmeProblemDocument;
}

export interface AcmeChallenge {
  type: string;
  url: string;
  status: AcmeStatus;
  token: string;
  error?: AcmeProblemDocument;
}

export interface AcmeAuthorization {
  status: AcmeStatus;
  identifier: { type: string; value: string };
  challenges: AcmeChallenge[];
}

export interface AcmeClientOptions {
  /** Account contact URLs (`mailto:`). */
  contact?: string[];
  /** How long to wait for an authorization or order to settle before giving up this attempt. */
  pollTimeoutMs?: number;
  fetch?: typeof fetch;
}

const encoder = new TextEncoder();
const badNonceRetries = 3;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * An RFC 8555 client on WebCrypto: requests are flattened JWS (ES256) signed with jose, with
 * the account's `jwk` for newAccount and its `kid` afterwards; every response's Replay-Nonce
 * feeds the next request, and a `badNonce` error is retried.
 */
export class AcmeClient {
  readonly #directoryUrl: string;
  readonly #keys: CryptoKeyPair;
  readonly #options: AcmeClientOptions;
  readonly #fetch: typeof fetch;
  #directory: AcmeDirectory | undefined;
  #nonce: string | undefined;
  #jwk: JWK | undefined;
  #accountUrl: string | undefined;

  constructor(directoryUrl: string, keys: CryptoKeyPair, accountUrl: string | undefined, options: AcmeClientOptions = {}) {
    this.#directoryUrl = directoryUrl;
    this.#keys = keys;
    this.#accountUrl = accountUrl;
    this.#options = options;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  async directory(): Promise<AcmeDirectory> {
    if (!this.#directory) {
      const response = await this.#fetch(this.#directoryUrl, { headers: { accept: 'application/json' } });
      if (!response.ok) throw new AcmeError(await problemOf(response), `Reading the ACME directory ${this.#directoryUrl}`);
      this.#directory = (await response.json()) as AcmeDirectory;
    }
    return this.#directory;
  }

  async #publicJwk(): Promise<JWK> {
    this.#jwk ??= await exportJWK(this.#keys.publicKey);
    return this.#jwk;
  }

  async #freshNonce(): Promise<string> {
    const response = await this.#fetch((await this.directory()).newNonce, { method: 'HEAD' });
    const nonce = response.headers.get('replay-nonce');
    if (!nonce) throw new Error(`The ACME server sent no Replay-Nonce (HTTP ${response.status}).`);
    return nonce;
  }

  /** A signed POST; `payload` undefined is POST-as-GET (RFC 8555 §6.3). */
  async #post(url: string, payload: unknown, context: string, accept?: string): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const nonce = this.#nonce ?? (await this.#freshNonce());
      this.#nonce = undefined;
      const identity = this.#accountUrl ? { kid: this.#accountUrl } : { jwk: await this.#publicJwk() };
      const jws = await new FlattenedSign(encoder.encode(payload === undefined ? '' : JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'ES256', nonce, url, ...identity })
        .sign(this.#keys.privateKey);
      const response = await this.#fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/jose+json', ...(accept ? { accept } : {}) },
        body: JSON.stringify(jws),
      });
      this.#nonce = response.headers.get('replay-nonce') ?? undefined;
      if (response.ok) return response;
      const error = new AcmeError(await problemOf(response), context);
      if (!error.isBadNonce || attempt >= badNonceRetries) throw error;
    }
  }

  async #postForJson<T>(url: string, payload: unknown, context: string): Promise<{ body: T; location: string | null }> {
    const response = await this.#post(url, payload, context);
    return { body: (await response.json()) as T, location: response.headers.get('location') };
  }

  /** Registers the account key (or finds its account) and uses the account URL from now on. */
  async account(): Promise<string> {
    if (this.#accountUrl) return this.#accountUrl;
    const { location } = await this.#postForJson(
      (await this.directory()).newAccount,
      { termsOfServiceAgreed: true, ...(this.#options.contact?.length ? { contact: this.#options.contact } : {}) },
      'Registering the ACME account',
    );
    if (!location) throw new Error('The ACME server sent no account URL.');
    this.#accountUrl = location;
    return location;
  }

  async newOrder(domain: string): Promise<{ url: string; order: AcmeOrder }> {
    const { body, location } = await this.#postForJson<AcmeOrder>(
      (await this.directory()).newOrder,
      { identifiers: [{ type: 'dns', value: domain }] },
      `Ordering a certificate for ${domain}`,
    );
    if (!location) throw new Error('The ACME server sent no order URL.');
    return { url: location, order: body };
  }

  async read<T>(url: string, context: string): Promise<T> {
    return (await this.#postForJson<T>(url, undefined, context)).body;
  }

  /** RFC 8555 §8.1: the key authorization a challenge's token must be answered with. */
  async keyAuthorization(token: string): Promise<string> {
    return `${token}.${await calculateJwkThumbprint(await this.#publicJwk(), 'sha256')}`;
  }

  /** Tells the server the challenge is ready to be validated. */
  async respond(challenge: AcmeChallenge): Promise<void> {
    await this.#post(challenge.url, {}, `Answering the ${challenge.type} challenge`);
  }

  async finalize(order: AcmeOrder, csrDer: ArrayBuffer): Promise<void> {
    await this.#post(order.finalize, { csr: base64url.encode(new Uint8Array(csrDer)) }, 'Finalizing the order');
  }

  async downloadChain(certificateUrl: string): Promise<string> {
    const response = await this.#post(certificateUrl, undefined, 'Downloading the certificate', 'application/pem-certificate-chain');
    return response.text();
  }

  /** Reads `url` until its status leaves `waitWhile`, honouring Retry-After within the poll timeout. */
  async poll<T extends { status: AcmeStatus }>(url: string, waitWhile: readonly AcmeStatus[], context: string): Promise<T> {
    const deadline = Date.now() + (this.#options.pollTimeoutMs ?? 60_000);
    for (let delay = 250; ; delay = Math.min(delay * 2, 4000)) {
      const response = await this.#post(url, undefined, context);
      const body = (await response.json()) as T;
      if (!waitWhile.includes(body.status)) return body;
      const retryAfter = Number(response.headers.get('retry-after'));
      const wait = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : delay;
      if (Date.now() + wait > deadline) throw new Error(`${context}: still ${body.status} after waiting; the next attempt goes on.`);
      await sleep(wait);
    }
  }
}

async function problemOf(response: Response): Promise<AcmeProblemDocument> {
  const text = await response.text();
  try {
    return JSON.parse(text) as AcmeProblemDocument;
  } catch {
    return { status: response.status, detail: `HTTP ${response.status}: ${text.slice(0, 200)}` };
  }
}
