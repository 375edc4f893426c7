import fc from 'fast-check';
import { base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import { hashToHex, hexToHash } from '../../src/content/manifest';
import { fuzzParameters } from '../fuzz/settings';

describe('manifest hashes', () => {
  it('turns any SHA-256 in hex into the base64url the file index holds, and back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
        expect(hexToHash(hex)).toBe(base64url.encode(bytes));
        expect(hashToHex(hexToHash(hex))).toBe(hex);
      }),
      fuzzParameters(500),
    );
  });
});
