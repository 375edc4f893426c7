/**
 * Private keys at rest: AES-256-GCM under a key derived (HKDF-SHA-256) from the secret
 * `CERT_ENCRYPTION_KEY`, so any long random string works as the secret. Each sealed value is
 * `version (1 byte) | IV (12 bytes) | ciphertext+tag`, bound to its context (the domain or
 * ACME directory it belongs to) as additional data: a value copied to another row will not open.
 */
const version = 1;
const ivBytes = 12;
const encoder = new TextEncoder();

export class MissingEncryptionKey extends Error {
  constructor() {
    super('CERT_ENCRYPTION_KEY is not set: certificates cannot be stored without it (see docs/certificates.md).');
    this.name = 'MissingEncryptionKey';
  }
}

async function aesKey(secret: string | undefined): Promise<CryptoKey> {
  if (!secret) throw new MissingEncryptionKey();
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: encoder.encode('sitehost certificates'), info: encoder.encode('keys at rest v1') },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

export async function seal(secret: string | undefined, context: string, plaintext: string): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(ivBytes));
  const ciphertext = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(context) },
    await aesKey(secret),
    encoder.encode(plaintext),
  );
  const sealed = new Uint8Array(1 + ivBytes + ciphertext.byteLength);
  sealed[0] = version;
  sealed.set(iv, 1);
  sealed.set(new Uint8Array(ciphertext), 1 + ivBytes);
  return sealed;
}

export async function open(secret: string | undefined, context: string, sealed: Uint8Array): Promise<string> {
  if (sealed[0] !== version) throw new Error(`Unknown sealed key format ${sealed[0]}.`);
  const plaintext = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: sealed.subarray(1, 1 + ivBytes), additionalData: encoder.encode(context) },
    await aesKey(secret),
    sealed.subarray(1 + ivBytes),
  );
  return new TextDecoder().decode(plaintext);
}
