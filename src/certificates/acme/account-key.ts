import { exportJWK, type JWK } from 'jose';

/** ACME account keys: ECDSA P-256 (ES256), kept as a private JWK so both halves can be restored. */
const algorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export async function generateAccountKey(): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
}

export async function exportAccountKey(keys: CryptoKeyPair): Promise<string> {
  return JSON.stringify(await exportJWK(keys.privateKey));
}

export async function importAccountKey(serialized: string): Promise<CryptoKeyPair> {
  const jwk = JSON.parse(serialized) as JWK & { x: string; y: string; crv: string };
  const publicJwk = { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y };
  const [privateKey, publicKey] = await Promise.all([
    crypto.subtle.importKey('jwk', jwk as JsonWebKey, algorithm, true, ['sign']),
    crypto.subtle.importKey('jwk', publicJwk, algorithm, true, ['verify']),
  ]);
  return { privateKey, publicKey };
}
