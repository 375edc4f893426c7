import fc from 'fast-check';
import { awkwardString } from './strings';

/** What the Worker under test requires of a self-issued token (docs/api.md, Authentication). */
const expected = { issuer: 'sitehost', audience: 'sitehost' };

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replaceAll('=', '').replaceAll('+', '-').replaceAll('/', '_');
const encodeJson = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));

const now = () => Math.floor(Date.now() / 1000);

/** Wrong values for each claim, in type or in value. */
const oddClaims = {
  sub: fc.oneof(fc.constantFrom('', 1, null, true, ['github|1'], { id: 1 }), awkwardString),
  iss: fc.oneof(fc.constantFrom('Sitehost', 'sitehost ', '', null, 1, ['sitehost']), awkwardString),
  aud: fc.constantFrom(['sitehost'], ['other', 'sitehost'], 'other', [], '', null, 1),
  exp: fc.oneof(fc.integer({ min: 60, max: 10 ** 9 }).map((ago) => ({ ago })), fc.constantFrom('9999999999', null, true, {}, -1, 0, 1e308, 9999999999.5)),
  nbf: fc.oneof(fc.integer({ min: 600, max: 10 ** 6 }).map((ahead) => ({ ahead })), fc.constantFrom(0, 'now', null)),
  iat: fc.oneof(fc.integer({ min: 0, max: 10 ** 6 }).map((ago) => ({ ago })), fc.constantFrom('now', null, {})),
  scope: fc.constantFrom('deploy global_read', '', 'DEPLOY', ' deploy ', 42, null, ['deploy']),
  permissions: fc.constantFrom(['deploy'], 'deploy', [1], null),
};

/** One change to a valid claim set: a claim left out, or given an odd value. */
const claimEdit = fc.oneof(
  ...Object.entries(oddClaims).map(([name, odd]) =>
    fc.oneof(fc.constant({ name, remove: true as const }), (odd as fc.Arbitrary<unknown>).map((value) => ({ name, value }))),
  ),
);

/** A claim set a step or two away from a valid one, so that each requirement is tried on its own. */
const claims = fc.array(claimEdit, { maxLength: 2 }).map((edits) => {
  const result: Record<string, unknown> = { sub: 'github|1', iss: expected.issuer, aud: expected.audience, exp: { ahead: 3600 }, scope: 'deploy' };
  for (const edit of edits) {
    if ('remove' in edit) delete result[edit.name];
    else result[edit.name] = edit.value;
  }
  return result;
});

type Claims = Record<string, unknown>;

/** Times are generated relative to now, so that "expired" and "not yet valid" mean what they say when sent. */
function resolveTimes(raw: Claims): Claims {
  const out: Claims = { ...raw };
  for (const name of ['exp', 'nbf', 'iat']) {
    const value = raw[name] as { ahead?: number; ago?: number } | undefined;
    if (value && typeof value === 'object' && ('ahead' in value || 'ago' in value)) out[name] = now() + (value.ahead ?? 0) - (value.ago ?? 0);
  }
  return out;
}

/**
 * Whether the claims are ones a correctly signed token may carry and be accepted: every one
 * docs/api.md requires is present and right, and the optional ones are well typed and current.
 */
function claimsAcceptable(payload: Claims): boolean {
  const at = now();
  const { sub, iss, aud, exp, nbf, iat } = payload;
  const audiences = Array.isArray(aud) ? aud : [aud];
  return (
    typeof sub === 'string' && sub !== '' &&
    iss === expected.issuer &&
    audiences.includes(expected.audience) &&
    typeof exp === 'number' && exp > at &&
    (nbf === undefined || (typeof nbf === 'number' && nbf <= at)) &&
    (iat === undefined || typeof iat === 'number')
  );
}

const headers = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ alg: 'HS256', typ: 'JWT' }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<Claims>(
      { alg: 'none' }, { alg: 'None', typ: 'JWT' }, { alg: 'NONE' }, { alg: 'HS384' }, { alg: 'HS512' }, { alg: 'RS256' }, { alg: 'ES256' },
      { alg: 'EdDSA' }, { alg: '' }, { alg: null }, {}, { alg: 'HS256', crit: ['exp'] }, { alg: 'HS256', b64: false, crit: ['b64'] },
      { alg: 'HS256', jwk: { kty: 'oct', k: 'AAAA' } }, { alg: 'HS256', kid: '../../etc/passwd' }, { alg: 'HS256', typ: 'JWE' }, { alg: 'dir', enc: 'A128GCM' },
    ),
  },
);

export interface TokenCase {
  authorization: string;
  /** Whether the service may accept it (200, or 403 for a scope); otherwise it must answer 401. */
  mayBeAccepted: boolean;
}

const signing = fc.oneof(
  { weight: 4, arbitrary: fc.constant('right' as const) },
  { weight: 3, arbitrary: fc.constantFrom('wrong secret' as const, 'empty' as const, 'tampered' as const, 'garbage' as const) },
);

const scheme = fc.oneof(
  { weight: 6, arbitrary: fc.constant('Bearer ') },
  { weight: 1, arbitrary: fc.constantFrom('bearer ', 'BEARER ', 'Bearer  ', 'Basic ', 'Bearer', ' Bearer ') },
);

/** A token described as data (so that a counterexample reads as one): its parts, or its whole text. */
export type TokenSpec =
  | { header: Claims; claims: Claims; signing: 'right' | 'wrong secret' | 'empty' | 'tampered' | 'garbage'; scheme: string }
  | { text: string };

export const tokenSpec: fc.Arbitrary<TokenSpec> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ header: headers, claims, signing, scheme }) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.array(fc.stringMatching(/^[A-Za-z0-9_=+/-]{0,40}$/), { minLength: 1, maxLength: 6 }).map((segments) => segments.join('.')),
        fc.string({ unit: 'binary-ascii', maxLength: 200 }),
        fc.constantFrom('', '.', '..', '...', 'e30.e30.', 'e30.e30.e30', 'eyJhbGciOiJIUzI1NiJ9..'),
      )
      .map((text) => ({ text })),
  },
);

const hmacKey = (secret: string) =>
  crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);

async function hmac(input: string, secret: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), new TextEncoder().encode(input))));
}

/** The Authorization header a spec describes, signed (or not) with `secret`, and whether it may be accepted. */
export async function tokenCaseOf(spec: TokenSpec, secret: string): Promise<TokenCase> {
  if ('text' in spec) return { authorization: `Bearer ${spec.text}`, mayBeAccepted: false };
  const payload = resolveTimes(spec.claims);
  const input = `${encodeJson(spec.header)}.${encodeJson(payload)}`;
  let signature = '';
  if (spec.signing === 'right' || spec.signing === 'tampered') signature = await hmac(input, secret);
  if (spec.signing === 'wrong secret') signature = await hmac(input, `${secret}-not`);
  if (spec.signing === 'garbage') signature = 'c2lnbmF0dXJl';
  // Changing the last character may only touch padding bits; the first always changes the MAC bytes.
  if (spec.signing === 'tampered') signature = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
  const schemeAccepted = spec.scheme.trim().toLowerCase() === 'bearer' && spec.scheme.endsWith(' ');
  const headerAcceptable = spec.header.alg === 'HS256' && !('crit' in spec.header) && !('b64' in spec.header);
  return {
    authorization: `${spec.scheme}${input}.${signature}`,
    mayBeAccepted: spec.signing === 'right' && schemeAccepted && headerAcceptable && claimsAcceptable(payload),
  };
}
