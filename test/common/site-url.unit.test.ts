import { describe, expect, it } from 'vitest';
import { siteDomainOf, siteUrl } from '../../src/common/site-url';

describe('site URLs', () => {
  it('serves example.com on example.com.localhost, and any other Host as itself', () => {
    expect(siteDomainOf('example.com.localhost')).toBe('example.com');
    expect(siteDomainOf('example.com')).toBe('example.com');
    expect(siteDomainOf('localhost')).toBe('localhost');
  });

  it('links to <domain>.localhost with the port of a service on this machine', () => {
    expect(siteUrl(new URL('http://127.0.0.1:8787'), 'example.com')).toBe('http://example.com.localhost:8787/');
    expect(siteUrl(new URL('http://localhost:8787/dashboard/'), 'example.com')).toBe('http://example.com.localhost:8787/');
    expect(siteUrl(new URL('http://[::1]'), 'example.com')).toBe('http://example.com.localhost/');
    expect(siteUrl(new URL('http://other.example.localhost:9000'), 'example.com')).toBe('http://example.com.localhost:9000/');
  });

  it('links to the domain itself over HTTPS from a service elsewhere', () => {
    expect(siteUrl(new URL('https://api.sitehost.net'), 'example.com')).toBe('https://example.com/');
    expect(siteUrl(new URL('http://sitehost.internal:8080'), 'example.com')).toBe('https://example.com/');
  });
});
