import type { DomainProofRecord } from '../common/api-types';

/** The DNS name a domain's proof is read at: a label of its own, as ACME's `_acme-challenge`, so it clashes with no other record. */
export function proofName(domain: string): string {
  return `_sitehost-challenge.${domain}`;
}

const encoder = new TextEncoder();

/**
 * The record `userId` adds to prove control of `domain`. Its value is derived, not stored: an
 * HMAC-SHA-256 of the user and the domain under the service's `key`, its first 128 bits in hex
 * (lower case, so no DNS console's editing can change it). The same for one user and domain
 * every time, another for another user; and it does not tell who the user is to whoever reads
 * the domain's DNS.
 */
export async function proofRecord(key: string, userId: string, domain: string): Promise<DomainProofRecord> {
  const hmacKey = await crypto.subtle.importKey('raw', encoder.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', hmacKey, encoder.encode(`sitehost domain proof\n${userId}\n${domain}`));
  const value = [...new Uint8Array(mac, 0, 16)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return { name: proofName(domain), type: 'TXT', value };
}
