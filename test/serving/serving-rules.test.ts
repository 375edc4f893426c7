import { describe, expect, it } from 'vitest';
import { configurationLimits } from '../../src/rules/configuration-limits';
import { maxPathLength } from '../../src/http/request-path';
import { authorized, deploy, problemOf } from '../support/client';
import { deployed, site } from './support';

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}.example`;

type Send = (domain: string, configuration: unknown) => Promise<Response>;
const configurationRequest = (method: string, type: string): Send => (domain, configuration) =>
  authorized(`/v2/sites/${domain}/configuration`, { method, headers: { 'content-type': type }, body: JSON.stringify(configuration) });
const senders: [string, Send][] = [
  ['the deploy configuration part', (domain, configuration) => deploy(domain, { 'index.html': 'replaced' }, configuration)],
  ['PUT configuration', configurationRequest('PUT', 'application/json')],
  ['PATCH configuration', configurationRequest('PATCH', 'application/merge-patch+json')],
];

const plainRedirects = (count: number) => Array.from({ length: count }, (_, i) => ({ from: `/old/${i}`, to: `/new/${i}` }));
const templatedRedirects = (count: number) => Array.from({ length: count }, (_, i) => ({ from: `/r${i}/{+p}`, to: `/n${i}/{+p}` }));
const headerRules = (count: number, uri: (i: number) => string) => Array.from({ length: count }, (_, i) => ({ uri: uri(i), fields: { 'X-Rule': `${i}` } }));
const long = `/${'a'.repeat(configurationLimits.MAX_TEMPLATE_LENGTH)}`;
const variables = (count: number) => Array.from({ length: count }, (_, i) => `/{v${i}}`).join('');
const bigValues = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`X-Big-${i}`, 'a'.repeat(100_000)]));

const overLimits: [string, string, unknown, string][] = [
  ['MAX_REDIRECT_RULES', 'redirects', { redirects: plainRedirects(configurationLimits.MAX_REDIRECT_RULES + 1) }, '/redirects'],
  ['MAX_TEMPLATED_REDIRECT_RULES', 'templated redirects', { redirects: templatedRedirects(configurationLimits.MAX_TEMPLATED_REDIRECT_RULES + 1) }, '/redirects'],
  ['MAX_HEADER_RULES', 'header rules', { headers: headerRules(configurationLimits.MAX_HEADER_RULES + 1, (i) => `/h${i}`) }, '/headers'],
  ['MAX_TEMPLATED_HEADER_RULES', 'templated header rules', { headers: headerRules(configurationLimits.MAX_TEMPLATED_HEADER_RULES + 1, (i) => `/h${i}/{x}`) }, '/headers'],
  ['MAX_MANIFEST_RULES', 'manifest rules', { manifest: Array.from({ length: configurationLimits.MAX_MANIFEST_RULES + 1 }, (_, i) => ({ get: `/p${i}.html`, push: '/app.js' })) }, '/manifest'],
  ['MAX_TEMPLATE_LENGTH', 'a redirect target', { redirects: [{ from: '/a', to: '/b' }, { from: '/x', to: long }] }, '/redirects/1/to'],
  ['MAX_TEMPLATE_LENGTH', 'a header uri', { headers: [{ uri: long, fields: { 'X-A': 'a' } }] }, '/headers/0/uri'],
  ['MAX_TEMPLATE_LENGTH', 'a manifest glob', { manifest: [{ get: '/index.html', push: [`${long}*`] }] }, '/manifest/0/push/0'],
  ['MAX_TEMPLATE_VARIABLES', 'the issue’s 409 explode expressions', { redirects: [{ from: '{/a*}'.repeat(409), to: '/y' }] }, '/redirects/0/from'],
  ['MAX_TEMPLATE_VARIABLES', 'a header uri', { headers: [{ uri: variables(configurationLimits.MAX_TEMPLATE_VARIABLES + 1), fields: { 'X-A': 'a' } }] }, '/headers/0/uri'],
  ['MAX_HEADER_BYTES', 'ten 100,000-byte header values', { headers: [{ fields: bigValues }] }, '/headers'],
  ['MAX_HEADER_BYTES', 'values that expand the path three times', { headers: [{ uri: '/a/{x}', fields: { 'X-A': '{x}', 'X-B': ['{x}', 'x={x}'] } }] }, '/headers'],
  ['MAX_HEADER_BYTES', 'a redirect target that expands the path three times', { redirects: [{ from: '/a/{+x}', to: '/{+x}/{+x}/{+x}' }] }, '/redirects/0/to'],
];

describe('configuration limits', () => {
  describe.each(senders)('%s', (_, send) => {
    it.each(overLimits)('refuses over %s (%s) with 413 naming it, and the site stays', async (limit, __, configuration, pointer) => {
      const domain = unique('limits');
      await deployed(domain, { 'index.html': 'kept home' }, { redirects: [{ from: '/kept', to: '/kept-target' }] });
      const configurationBefore = await (await authorized(`/v2/sites/${domain}/configuration`)).text();
      const response = await send(domain, configuration);
      expect(response.status).toBe(413);
      expect(await problemOf(response)).toMatchObject({
        limit,
        value: configurationLimits[limit as keyof typeof configurationLimits],
        errors: [{ pointer }],
      });
      expect(await (await site(domain, '/')).text()).toBe('kept home');
      expect((await site(domain, '/kept')).headers.get('location')).toBe('/kept-target');
      expect(await (await authorized(`/v2/sites/${domain}/configuration`)).text()).toBe(configurationBefore);
    });
  });

  it('accepts every limit reached exactly, and serves such a site', async () => {
    const domain = unique('at-limits');
    const plain = configurationLimits.MAX_REDIRECT_RULES - configurationLimits.MAX_TEMPLATED_REDIRECT_RULES;
    const plainHeaders = configurationLimits.MAX_HEADER_RULES - configurationLimits.MAX_TEMPLATED_HEADER_RULES - 1;
    // `name: value` and a line end: the templated rules' `X-Rule: 0` to `X-Rule: 199` (all may
    // apply to one request), one plain path's `X-Rule: 799`, and a rule for every path filling the rest.
    const templatedBytes = configurationLimits.MAX_TEMPLATED_HEADER_RULES * 10 + 490;
    const everywhere = 'a'.repeat(configurationLimits.MAX_HEADER_BYTES - templatedBytes - 13 - 'X-Big'.length - 4);
    await deployed(domain, { 'index.html': 'home', 'assets/a.css': 'a{}' }, {
      redirects: [
        ...plainRedirects(plain),
        ...templatedRedirects(configurationLimits.MAX_TEMPLATED_REDIRECT_RULES - 2),
        { from: variables(configurationLimits.MAX_TEMPLATE_VARIABLES), to: `/all${variables(configurationLimits.MAX_TEMPLATE_VARIABLES)}` },
        { from: '/bounded/{+x}', to: '/{+x}/{+x}' },
      ],
      headers: [
        ...headerRules(plainHeaders, (i) => `/h${i}`),
        ...headerRules(configurationLimits.MAX_TEMPLATED_HEADER_RULES, (i) => `/h${i}/{x}`),
        { fields: { 'X-Big': everywhere } },
      ],
      manifest: Array.from({ length: configurationLimits.MAX_MANIFEST_RULES }, (_, i) => ({ get: `/p${i}.html`, push: '/app.js' })),
    });
    expect((await site(domain, `/old/${plain - 1}`)).headers.get('location')).toBe(`/new/${plain - 1}`);
    const lastTemplated = configurationLimits.MAX_TEMPLATED_REDIRECT_RULES - 3;
    expect((await site(domain, `/r${lastTemplated}/a/b`)).headers.get('location')).toBe(`/n${lastTemplated}/a/b`);
    const sixteen = `/${Array.from({ length: configurationLimits.MAX_TEMPLATE_VARIABLES }, (_, i) => i).join('/')}`;
    expect((await site(domain, sixteen)).headers.get('location')).toBe(`/all${sixteen}`);
    expect((await site(domain, '/assets/a.css')).headers.get('x-big')).toBe(everywhere);
    expect((await site(domain, '/bounded/a/b')).headers.get('location')).toBe('/a/b/a/b');
    // A path at the length limit past every rule: what answers is the site, not the rules.
    expect((await site(domain, `/${'p'.repeat(maxPathLength - 1)}`)).status).toBe(404);
  });
});

/** Host options that name files: bounded and free of control characters, like an uploaded file's name. */
const badPaths: [string, unknown, string][] = [
  ['a root of NUL characters', { root: '\u0000'.repeat(100_000) }, '/root'],
  ['a root over 1024 characters', { root: 'a'.repeat(1025) }, '/root'],
  ['a fallback file with a newline', { fallback: { 404: '/404\n.html' } }, '/fallback/404'],
  ['a manifest file with a DEL', { manifest: 'push\u007F.json' }, '/manifest'],
];

describe('host options that are paths', () => {
  describe.each(senders)('%s', (_, send) => {
    it.each(badPaths)('refuses %s with 400 pointing at it, and the site stays', async (__, configuration, pointer) => {
      const domain = unique('bad-path');
      await deployed(domain, { 'index.html': 'kept home' }, { fallback: { 404: '/index.html' } });
      const configurationBefore = await (await authorized(`/v2/sites/${domain}/configuration`)).text();
      const response = await send(domain, configuration);
      expect(response.status).toBe(400);
      const { type, errors } = (await problemOf(response)) as { type: string; errors: { pointer: string }[] };
      expect({ type, pointers: [...new Set(errors.map((error) => error.pointer))] }).toEqual({ type: '/problems/invalid-configuration', pointers: [pointer] });
      expect(await (await site(domain, '/missing')).text()).toBe('kept home');
      expect(await (await authorized(`/v2/sites/${domain}/configuration`)).text()).toBe(configurationBefore);
    });
  });
});

describe('redirect rules by exact path', () => {
  it('resolve the first, middle and last of 2,000 plain rules, in order with templated ones', async () => {
    const domain = unique('many-redirects');
    await deployed(domain, { 'index.html': 'home' }, {
      redirects: [
        { from: '/shadow/{x}', to: '/templated-first/{x}' },
        ...plainRedirects(2_000),
        { from: '/shadow/plain', to: '/never' },
        { from: '/old/{x}', to: '/templated-after/{x}' },
      ],
    });
    for (const i of [0, 1_000, 1_999]) {
      const response = await site(domain, `/old/${i}?q=1`);
      expect(response.status).toBe(308);
      expect(response.headers.get('location')).toBe(`/new/${i}?q=1`);
    }
    expect((await site(domain, '/shadow/plain')).headers.get('location')).toBe('/templated-first/plain');
    expect((await site(domain, '/old/other')).headers.get('location')).toBe('/templated-after/other');
  });
});

describe('redirect targets outside ASCII', () => {
  it('go out percent-encoded (a host in punycode), so the browser lands on the page written', async () => {
    const domain = unique('iri-redirects');
    await deployed(domain, { 'index.html': 'home', 'café/index.html': 'the menu' }, {
      redirects: [
        { from: '/menu', to: '/café/' },
        { from: '/books', to: 'https://bücher.books.example/ü' },
        { from: '/odd', to: '\uFEFF' },
      ],
    });
    const menu = await site(domain, '/menu?day=1');
    expect(menu.status).toBe(308);
    expect(menu.headers.get('location')).toBe('/caf%C3%A9/?day=1');
    expect(await (await site(domain, menu.headers.get('location')!)).text()).toBe('the menu');
    expect((await site(domain, '/books')).headers.get('location')).toBe('https://xn--bcher-kva.books.example/%C3%BC');
    expect((await site(domain, '/odd')).headers.get('location')).toBe('%EF%BB%BF');
  });
});

describe('header rules', () => {
  it('expand the variables of their uri in field values, and send other braces as written', async () => {
    const domain = unique('header-templates');
    await deployed(domain, { 'index.html': 'home', 'assets/app.js': 'js', 'assets/a b.js': 'js' }, {
      headers: [
        { uri: '/assets/{file}', fields: { 'X-Asset': '{file}', 'X-Both': ['file={file}', '{other}'], 'Report-To': '{"group":"g"}' } },
        { fields: { 'X-Everywhere': '{file}' } },
      ],
    });
    const asset = await site(domain, '/assets/app.js');
    expect(asset.headers.get('x-asset')).toBe('app.js');
    expect(asset.headers.get('x-both')).toBe('file=app.js, {other}');
    expect(asset.headers.get('report-to')).toBe('{"group":"g"}');
    expect(asset.headers.get('x-everywhere')).toBe('{file}');
    expect((await site(domain, '/assets/a%20b.js')).headers.get('x-asset')).toBe('a%20b.js');
  });

  it('apply to files served, the single-page fallback too, but not to 404s or redirects', async () => {
    const immutable = 'public, max-age=31536000, immutable';
    const headers = [
      { uri: '/assets/{file}', fields: { 'Cache-Control': immutable } },
      { fields: { 'X-Site': 'yes' } },
    ];
    const domain = unique('header-misses');
    await deployed(domain, { 'index.html': 'home', 'assets/a.css': 'a{}', '404.html': 'custom 404' }, {
      headers,
      fallback: { 404: '/404.html' },
      redirects: [{ from: '/assets/moved.css', to: '/assets/a.css' }],
    });
    const found = await site(domain, '/assets/a.css');
    expect(found.headers.get('cache-control')).toBe(immutable);
    expect(found.headers.get('x-site')).toBe('yes');
    const revalidated = await site(domain, '/assets/a.css', { headers: { 'if-none-match': found.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('cache-control')).toBe(immutable);
    for (const path of ['/assets/x.css', '/assets/moved.css']) {
      const response = await site(domain, path);
      expect([404, 308]).toContain(response.status);
      expect(response.headers.get('cache-control')).not.toBe(immutable);
      expect(response.headers.get('x-site')).toBeNull();
    }

    const spa = unique('header-spa');
    await deployed(spa, { 'index.html': 'app shell' }, { headers, fallback: '/index.html' });
    const fallback = await site(spa, '/assets/route');
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get('x-site')).toBe('yes');
  });

  it('cannot set the content coding or the length: refused, as a _headers file’s line is', async () => {
    const refused = await deploy(unique('header-coding'), { 'index.html': 'hello hello hello' }, { headers: [{ fields: { 'Content-Encoding': 'gzip', 'content-length': '1' } }] });
    expect(refused.status).toBe(400);
    expect(await problemOf(refused)).toMatchObject({ errors: [{ pointer: '/headers/0/fields/Content-Encoding' }, { pointer: '/headers/0/fields/content-length' }] });
  });
});

describe('redirects to script URLs', () => {
  it.each(['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,x', 'vbscript:x'])('refuses %s as a target with 400 pointing at it', async (to) => {
    const response = await deploy(unique('script-redirect'), { 'index.html': 'x' }, { redirects: [{ from: '/go', to }] });
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-configuration', errors: [{ pointer: '/redirects/0/to' }] });
  });

  it('never sends one that a variable carries in', async () => {
    const domain = unique('script-variable');
    await deployed(domain, { 'index.html': 'x' }, { redirects: [{ from: '/go/{+to}', to: '{+to}' }] });
    expect((await site(domain, '/go/elsewhere/page')).headers.get('location')).toBe('elsewhere/page');
    const script = await site(domain, '/go/javascript:alert(1)');
    expect(script.status).toBe(404);
    expect(script.headers.get('location')).toBeNull();
  });
});

describe('request path length', () => {
  it(`answers a path longer than ${maxPathLength} bytes with 414 URI Too Long (RFC 9110 §15.5.15) naming the limit`, async () => {
    const domain = unique('long-path');
    await deployed(domain, { 'index.html': 'x' });
    const response = await site(domain, `/${'a'.repeat(maxPathLength)}`);
    expect(response.status).toBe(414);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/uri-too-long', status: 414, limit: 'MAX_PATH_LENGTH', value: maxPathLength });
    expect((await site(domain, `/${'a'.repeat(maxPathLength - 1)}`)).status).toBe(404);
  });
});

describe('a manifest file over the limits', () => {
  it('is not used: the page is served without its Link header', async () => {
    const domain = unique('manifest-file-limit');
    const rules = Array.from({ length: configurationLimits.MAX_MANIFEST_RULES + 1 }, () => ({ get: '/index.html', push: '/style.css' }));
    await deployed(domain, { 'index.html': 'home', 'style.css': '', 'push.json': JSON.stringify(rules) }, { manifest: 'push.json' });
    const response = await site(domain, '/');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('home');
    expect(response.headers.get('link')).toBeNull();

    const within = unique('manifest-file-within');
    await deployed(within, { 'index.html': 'home', 'style.css': '', 'push.json': JSON.stringify(rules.slice(1)) }, { manifest: 'push.json' });
    expect((await site(within, '/')).headers.get('link')).toBe('</style.css>; rel=preload; as=style');
  });
});
