import { describe, expect, it } from 'vitest';
import type { HostConfiguration } from '../../src/configuration/parse';
import { hostOptionsOf } from '../../src/serving/host-options';
import { parseRequestPath } from '../../src/http/request-path';
import { resolve } from '../../src/serving/resolve';
import type { SiteFiles } from '../../src/serving/site-files';
import { compileSiteRules } from '../../src/rules/compiled-rules';
import type { FileEntry } from '../../src/storage/file-index';

/** A deployment of `paths`, arranged as src/serving/site-files.ts arranges a file index. */
function siteFiles(paths: string[]): SiteFiles {
  const byPath = new Map<string, FileEntry>();
  const directories = new Set<string>(['']);
  for (const path of paths) {
    byPath.set(path, { path, pack: 0, offset: 0, size: 1, hash: path, contentType: 'text/html', modified: 0 });
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) directories.add(path.slice(0, slash));
  }
  return { deploymentId: 'd', packs: ['p'], byPath, directories, rules: compileSiteRules(undefined) };
}

/** The resolution as one line: `200 index.html`, `308 → /about/`, `not-found`. */
function resolved(target: string, configuration: HostConfiguration, paths: string[], wantsPage = true): string {
  const url = new URL(target, 'https://site.example');
  const resolution = resolve(parseRequestPath(url.pathname), url.search, hostOptionsOf(configuration), siteFiles(paths), wantsPage);
  if (resolution.type === 'file') return `${resolution.status} ${resolution.entry.path}`;
  if (resolution.type === 'redirect') return `${resolution.status} → ${resolution.location}`;
  return 'not-found';
}

const site = ['index.html', 'about.html', 'docs/index.html', 'docs/intro.html', 'page.html', 'app.js', '404.html'];

describe('resolve', () => {
  it.each<[string, string, HostConfiguration, string[], string]>([
    // files and extensions
    ['the root is its index.html', '/', {}, site, '200 index.html'],
    ['a file by its own name', '/app.js', {}, site, '200 app.js'],
    ['a page without its .html', '/about', {}, site, '200 about.html'],
    ['the file itself before an extension', '/a', {}, ['a', 'a.html'], '200 a'],
    ['extensions in their order', '/a', { fallback: { extensions: ['htm', 'html'] } }, ['a.html', 'a.htm'], '200 a.htm'],
    ['no extension tried without "html" in the list', '/about', { fallback: { extensions: [''] } }, site, '404 404.html'],
    ['a dotted extension is the same extension', '/about', { fallback: { extensions: ['.html'] } }, site, '200 about.html'],
    ['a missing file', '/nothing.css', {}, ['index.html'], 'not-found'],
    // folders and trailing slashes
    ['a folder gets its trailing slash, query kept', '/docs?x=1', {}, site, '308 → /docs/?x=1'],
    ['a folder with its slash is its index.html', '/docs/', {}, site, '200 docs/index.html'],
    ['a folder without index.html', '/docs/', {}, ['docs/intro.html'], 'not-found'],
    ['trailingSlash never: the slash goes', '/docs/', { directories: { trailingSlash: 'never' } }, site, '308 → /docs'],
    ['trailingSlash never: the folder without slash', '/docs', { directories: { trailingSlash: 'never' } }, site, '200 docs/index.html'],
    ['trailingSlash never: a file asked as a folder', '/page.html/', { directories: { trailingSlash: 'never' } }, site, '308 → /page.html'],
    ['trailingSlash never: the root keeps its slash', '/', { directories: { trailingSlash: 'never' } }, site, '200 index.html'],
    ['resolve false still redirects a folder to its trailing slash: it turns off only the normalising redirect', '/pub', { directories: { resolve: false } }, ['pub/index.html'], '308 → /pub/'],
    ['resolve false still takes the slash away with never', '/docs/', { directories: { resolve: false, trailingSlash: 'never' } }, site, '308 → /docs'],
    ['resolve (default): dot segments redirect to the normal form, query kept', '/docs/..%2fabout?x=1', {}, site, '308 → /about?x=1'],
    ['resolve (default): "//" redirects to the normal form', '/docs//intro', {}, site, '308 → /docs/intro'],
    ['resolve false: dot segments and "//" are served where they resolve', '/docs/..%2f/about', { directories: { resolve: false } }, site, '200 about.html'],
    ['a file asked as a folder is missing', '/page.html/', {}, site, '404 404.html'],
    // root
    ['root: the root folder is the top', '/', { root: 'public' }, ['public/index.html', 'index.html'], '200 public/index.html'],
    ['root: files outside it are not served', '/secret.html', { root: '/public/' }, ['public/index.html', 'secret.html'], 'not-found'],
    ['root: ".." cannot climb out of it', '/../secret.html', { root: 'public' }, ['public/index.html', 'secret.html'], 'not-found'],
    ['root: folders inside it', '/docs', { root: 'public' }, ['public/docs/index.html'], '308 → /docs/'],
    // fallbacks
    ['a 200 fallback for a page', '/app/route', { fallback: '/index.html' }, site, '200 index.html'],
    ['a 404 fallback with its status', '/nothing', { fallback: { 404: '/404.html' } }, site, '404 404.html'],
    ['the 2xx fallback before the 4xx', '/nothing', { fallback: { 404: '/404.html', 200: '/index.html' } }, site, '200 index.html'],
    ['a missing fallback file gives way to the next', '/nothing', { fallback: { 200: '/shell.html', 404: '/404.html' } }, site, '404 404.html'],
    ['fallback paths are under the root', '/nothing', { root: 'public', fallback: '404.html' }, ['public/404.html', '404.html'], '200 public/404.html'],
    ['no fallback: the root 404.html with 404, as Netlify, Pages, GitHub Pages and Firebase', '/nothing', {}, site, '404 404.html'],
    ['no fallback and no 404.html: not found', '/nothing', {}, ['index.html'], 'not-found'],
    ['the default 404.html is under the root', '/nothing', { root: 'public' }, ['public/404.html', '404.html'], '404 public/404.html'],
    ['an explicit 404 fallback wins over 404.html', '/nothing', { fallback: { 404: '/missing.html' } }, [...site, 'missing.html'], '404 missing.html'],
    ['an explicit 404 fallback that is missing does not fall to 404.html', '/nothing', { fallback: { 404: '/gone.html' } }, site, 'not-found'],
    ['a 200 fallback (SPA) wins for pages over the default 404.html', '/app/route', { fallback: '/index.html' }, site, '200 index.html'],
    ['an existing file before any fallback', '/about', { fallback: '/index.html' }, site, '200 about.html'],
    // redirects
    ['a redirect, with the default 308 and the query', '/old/a?q=1', { redirects: [{ from: '/old/{x}', to: '/new/{x}' }] }, site, '308 → /new/a?q=1'],
    ['a redirect target keeps its own query', '/old/a?q=1', { redirects: [{ from: '/old/{x}', to: '/new?page={x}', status: 301 }] }, site, '301 → /new?page=a'],
    ['redirects before files', '/about', { redirects: [{ from: '/about', to: '/team' }] }, site, '308 → /team'],
    ['the first matching redirect', '/a', { redirects: [{ from: '/{x}', to: '/first' }, { from: '/a', to: '/second' }] }, site, '308 → /first'],
    ['a script URL carried in by a variable is never sent', '/go/javascript:alert(1)', { redirects: [{ from: '/go/{+to}', to: '{+to}' }] }, site, 'not-found'],
  ])('%s: %s', (_, target, configuration, paths, expected) => {
    expect(resolved(target, configuration, paths)).toBe(expected);
  });

  it.each<[string, HostConfiguration, string]>([
    ['a 2xx fallback answers pages only: the default 404.html answers the rest', { fallback: '/index.html' }, '404 404.html'],
    ['a 4xx fallback answers any miss', { fallback: { 404: '/404.html' } }, '404 404.html'],
    ['the 4xx when the 2xx does not apply', { fallback: { 200: '/index.html', 404: '/404.html' } }, '404 404.html'],
  ])('for a request that wants no page (a missing asset), %s', (_, configuration, expected) => {
    expect(resolved('/missing.js', configuration, site, false)).toBe(expected);
  });
});
