import { open, seal } from '../keys-at-rest';
import { certificateRequest, generateDomainKey, parseChain } from '../certificate-material';
import type { IssueOutcome, IssueRequest, Issuer } from '../issuer';
import { deleteChallenge, getAcmeAccount, putAcmeAccount, putChallenge } from '../../storage/certificates';
import { exportAccountKey, generateAccountKey, importAccountKey } from './account-key';
import { AcmeClient, type AcmeAuthorization, type AcmeClientOptions, type AcmeOrder } from './acme-client';
import { AcmeError } from './acme-problem';
import { log } from '../../platform/log';

export interface AcmeIssuerOptions extends AcmeClientOptions {
  db: D1Database;
  directoryUrl: string;
  encryptionSecret: string | undefined;
}

/**
 * Issues through an RFC 8555 CA: one account per directory (key sealed in D1), one order per
 * attempt, HTTP-01 answered by this Worker from `acme_challenges` (src/certificates/challenge.ts).
 */
export class AcmeIssuer implements Issuer {
  readonly name = 'acme';

  constructor(private readonly options: AcmeIssuerOptions) {}

  async issue({ domain }: IssueRequest): Promise<IssueOutcome> {
    try {
      return await this.#issue(await this.#client(), domain);
    } catch (error) {
      if (!(error instanceof AcmeError && error.isAccountMissing)) throw error;
      log.warn('ACME account unknown to the CA (accountDoesNotExist); registering a new one', { domain });
      return this.#issue(await this.#register(), domain);
    }
  }

  async #issue(client: AcmeClient, domain: string): Promise<IssueOutcome> {
    const { url, order: created } = await client.newOrder(domain);
    for (const authorization of created.authorizations) await this.#authorize(client, authorization, domain);

    const ready = await client.poll<AcmeOrder>(url, ['pending'], `Waiting for the order for ${domain}`);
    if (ready.status !== 'ready') throw orderFailed(ready, domain);
    const key = await generateDomainKey();
    await client.finalize(ready, await certificateRequest(domain, key));
    const valid = await client.poll<AcmeOrder>(url, ['ready', 'processing'], `Waiting for the certificate for ${domain}`);
    if (valid.status !== 'valid' || !valid.certificate) throw orderFailed(valid, domain);

    const chain = await client.downloadChain(valid.certificate);
    const { notBefore, notAfter } = parseChain(chain);
    return { kind: 'issued', issued: notBefore, expires: notAfter, chain, keyPem: key.pem, externalId: null };
  }

  /** ACME keeps nothing to delete; the domain's challenges go with its certificate record. */
  async remove(): Promise<void> {}

  async #authorize(client: AcmeClient, url: string, domain: string): Promise<void> {
    const authorization = await client.read<AcmeAuthorization>(url, `Reading the authorization for ${domain}`);
    if (authorization.status === 'valid') return;
    const challenge = authorization.challenges.find((candidate) => candidate.type === 'http-01');
    if (!challenge) throw new Error(`The ACME server offers no http-01 challenge for ${domain}.`);
    const { db } = this.options;
    await putChallenge(db, domain, challenge.token, await client.keyAuthorization(challenge.token), Date.now());
    try {
      if (challenge.status === 'pending') await client.respond(challenge);
      const settled = await client.poll<AcmeAuthorization>(url, ['pending'], `Waiting for validation of ${domain}`);
      if (settled.status !== 'valid') {
        const refused = settled.challenges.find((candidate) => candidate.type === 'http-01');
        throw new AcmeError(
          refused?.error ?? { detail: `the authorization is ${settled.status}` },
          `The ACME server refused the http-01 challenge for ${domain}`,
        );
      }
    } finally {
      await deleteChallenge(db, challenge.token);
    }
  }

  /** A client signing as this directory's account, registering one on first use. */
  async #client(): Promise<AcmeClient> {
    const { db, directoryUrl, encryptionSecret } = this.options;
    const stored = await getAcmeAccount(db, directoryUrl);
    if (!stored) return this.#register();
    const keys = await importAccountKey(await open(encryptionSecret, directoryUrl, stored.encryptedKey));
    return new AcmeClient(directoryUrl, keys, stored.accountUrl, this.options);
  }

  /** Registers a new account key and keeps it (sealed) for this directory. */
  async #register(): Promise<AcmeClient> {
    const { db, directoryUrl, encryptionSecret } = this.options;
    const keys = await generateAccountKey();
    const encryptedKey = await seal(encryptionSecret, directoryUrl, await exportAccountKey(keys));
    const client = new AcmeClient(directoryUrl, keys, undefined, this.options);
    await putAcmeAccount(db, directoryUrl, { accountUrl: await client.account(), encryptedKey }, Date.now());
    return client;
  }
}

function orderFailed(order: AcmeOrder, domain: string): AcmeError {
  return new AcmeError(order.error ?? { detail: `the order is ${order.status}` }, `The ACME order for ${domain} failed`);
}
