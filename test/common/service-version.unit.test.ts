import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isOlderVersion } from '../../src/common/service-version';

describe('isOlderVersion: whether the CLI is older than the service, by Semantic Versioning', () => {
  it.each<[string, string, boolean | undefined]>([
    ['0.1.0', '0.2.0', true],
    ['0.2.0', '0.1.0', false],
    ['0.1.0', '0.1.0', false],
    ['0.9.0', '0.10.0', true],
    ['1.0.0', '0.99.99', false],
    ['1.0.0-rc.1', '1.0.0', true],
    ['1.0.0', '1.0.0-rc.1', false],
    ['1.0.0-alpha', '1.0.0-alpha.1', true],
    ['1.0.0-alpha.1', '1.0.0-alpha.beta', true],
    ['1.0.0-beta.2', '1.0.0-beta.11', true],
    ['1.0.0-rc.1', '1.0.0-beta.11', false],
    ['0.1.0', 'unknown', undefined],
    ['0.1', '0.2.0', undefined],
  ])('%s against %s: %s', (cli, service, older) => {
    expect(isOlderVersion(cli, service)).toBe(older);
  });

  const version = fc
    .tuple(fc.nat(20), fc.nat(20), fc.nat(20), fc.option(fc.array(fc.oneof(fc.nat(12).map(String), fc.constantFrom('alpha', 'beta', 'rc')), { minLength: 1, maxLength: 3 }), { nil: undefined }))
    .map(([major, minor, patch, pre]) => `${major}.${minor}.${patch}${pre ? `-${pre.join('.')}` : ''}`);

  it('is an order: never older than itself, never both ways, and transitive', () => {
    fc.assert(
      fc.property(version, version, version, (a, b, c) => {
        expect(isOlderVersion(a, a)).toBe(false);
        expect(isOlderVersion(a, b) && isOlderVersion(b, a)).toBe(false);
        if (isOlderVersion(a, b) && isOlderVersion(b, c)) expect(isOlderVersion(a, c)).toBe(true);
      }),
      { seed: 41 },
    );
  });
});
