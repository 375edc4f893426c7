/**
 * Standard Webhooks signatures (standardwebhooks.com): `v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">`. Hand-written on WebCrypto, which the runtime has natively, rather than
 * with the `standardwebhooks` package (its pure-JS SHA-256 would add a dependency for ten lines);
 * the tests verify these signatures with that package.
 */
const encoder = new TextEncoder();

/** A `whsec_` secret carries its key in base64 (the scheme's convention); any other is used as UTF-8 text. */
function keyBytes(secret: string): Uint8Array {
  const prefix = 'whsec_';
  if (!secret.startsWith(prefix)) return encoder.encode(secret);
  return Uint8Array.from(atob(secret.slice(prefix.length)), (char) => char.charCodeAt(0));
}

function base64(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

/** The `webhook-signature` header for a message. `timestamp` is in seconds since the epoch. */
export async function signWebhook(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', keyBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`${id}.${timestamp}.${body}`));
  return `v1,${base64(mac)}`;
}
