import { describe, expect, it } from 'vitest';
import { parseDomain } from '../../src/platform/domain-name';
import { Problem } from '../../src/http/problem';

const apiHosts = ['localhost', 'api.sitehost.test'];

describe('parseDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['www.sub.example.co.uk', 'www.sub.example.co.uk'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['a-b.example', 'a-b.example'],
    ['1.example', '1.example'],
    [`${'a'.repeat(63)}.example`, `${'a'.repeat(63)}.example`],
  ])('accepts %j as %j', (input, expected) => {
    expect(parseDomain(input, apiHosts)).toBe(expected);
  });

  it.each([
    ['', 'empty'],
    ['.', 'empty'],
    ['example', 'at least two labels'],
    ['127.0.0.1', 'IP addresses'],
    ['*.example.com', 'wildcards'],
    ['-a.example', 'hyphen'],
    ['a-.example', 'hyphen'],
    ['a..example', 'empty label'],
    ['a_b.example', 'letters, digits and hyphens'],
    [`${'a'.repeat(64)}.example`, 'longer than 63'],
    [`${'a.'.repeat(127)}example`, 'longer than 253'],
    ['site.localhost', '.localhost'],
    ['api.sitehost.test', 'API host'],
    ['example.com/x', 'characters a hostname cannot have'],
    ['exa mple.com', 'characters a hostname cannot have'],
    ['user@example.com', 'characters a hostname cannot have'],
    ['example.com:8080', 'characters a hostname cannot have'],
  ])('refuses %j (%s) with an invalid-domain problem', (input, why) => {
    let thrown: unknown;
    try {
      parseDomain(input, apiHosts);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Problem);
    expect((thrown as Problem).kind).toBe('invalid-domain');
    expect((thrown as Problem).status).toBe(400);
    expect((thrown as Problem).detail).toContain(why);
  });
});
