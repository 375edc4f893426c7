import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllHeaders } from 'netlify-headers-parser';
import { parseAllRedirects } from 'netlify-redirect-parser';
import { describe, expect, it } from 'vitest';
import { parseHeadersFile } from '../../src/rules/headers-file';
import { parseRedirectsFile } from '../../src/rules/redirects-file';

/**
 * The service's parsers against Netlify's own (netlify-redirect-parser, netlify-headers-parser,
 * which read files through Node's fs, so this runs in Node), on a corpus of the forms both
 * hosts document (./rules-corpus). Cloudflare Pages' syntax is the subset without `!`, queries
 * and conditions; its parser ships only inside wrangler's bundle, so Netlify's stands for both.
 * `! Name` lines are Pages' alone: Netlify's parser skips them, so fields alone are compared.
 */
const corpus = (name: string) => readFileSync(join(import.meta.dirname, 'rules-corpus', name), 'utf8');

/** Real sites' files, as they deployed on Netlify (each names its source in its first lines). */
const realFiles = ['astro-docs/_redirects'];

/**
 * A stored template back in the files' syntax: `{name}` is `:name` (a name such as `lang:` or
 * `a-:b` percent-encoded in its variable, a name written again with `.2` after it, the empty one `%00`), `{+splat}`
 * is `*` in a path, `:splat` in a target.
 */
function written(variable: string): string {
  return `:${decodeURIComponent(variable.replace(/\.\d+$/, '').replace(/^%00$/, ''))}`;
}
function pattern(template: string): string {
  return template.replace('{+splat}', '*').replace(/\{([\w%.]+)\}/g, (_, name: string) => written(name)).replace(/%7B/g, '{').replace(/%7D/g, '}');
}
function target(template: string): string {
  return template.replace(/\{\+([\w%.]+)\}/g, (_, name: string) => written(name)).replace(/%7B/g, '{').replace(/%7D/g, '}');
}

/** The members of a rule Netlify's parsers answer that are compared (their types declare them loosely). */
interface NetlifyRedirect {
  from: string;
  to: string;
  status?: number;
  force?: boolean;
  query?: Record<string, string>;
  conditions?: { Country?: string[]; Language?: string[] };
}
interface NetlifyHeaders {
  for: string;
  values: Record<string, string>;
}

async function withFile<T>(name: string, text: string, read: (path: string) => Promise<T>): Promise<T> {
  const path = join(mkdtempSync(join(tmpdir(), 'rules-')), name);
  writeFileSync(path, text);
  return read(path);
}

describe('the rules files read as Netlify reads them', () => {
  it('_redirects: every rule of the corpus (≥ 40 lines) the same', async () => {
    const text = corpus('_redirects');
    expect(text.split('\n').filter((line) => /^\s*[^#\s]/.test(line)).length).toBeGreaterThanOrEqual(40);
    await expectReadAsNetlifyReads(text);
  });

  it.each(realFiles)("%s: a real site's file, every rule the same", async (name) => {
    await expectReadAsNetlifyReads(corpus(name));
  });

  it('_redirects: colons in any place of a path, a target and a query, the same', async () => {
    const lines = [
      '/x:na:me /y/:na:me 301',
      '/:a:b /c/:a:b/:a/:b 301',
      '/a/:b:/c /d/:b:/:b 301',
      '/:lang:/x /y/:lang: 302',
      '/file.:ext /f/:ext',
      '/:a-:b /c/:a-:b',
      '/:a/:a/:1x /t/:a/:1x',
      '/: /colon',
      '/s/:p id=:p q=:a:b /t/:p/:a:b 302',
      '/q id=: /t/: 302',
      '/:a:/* 200',
    ];
    await expectReadAsNetlifyReads(lines.join('\n'));
  });

  async function expectReadAsNetlifyReads(text: string): Promise<void> {
    const reference = await withFile('_redirects', text, (path) => parseAllRedirects({ redirectsFiles: [path], configRedirects: [], minimal: true }));
    expect(reference.errors).toEqual([]);
    const theirs = (reference.redirects as NetlifyRedirect[]).map((rule) => ({
      from: rule.from,
      to: rule.to,
      status: rule.status ?? 301,
      force: rule.force ?? false,
      query: rule.query ?? {},
      countries: (rule.conditions?.Country ?? []).map((code: string) => code.toUpperCase()),
      languages: (rule.conditions?.Language ?? []).map((tag: string) => tag.toLowerCase()),
    }));
    const ours = parseRedirectsFile(text).map((rule) => ({
      from: (rule.origin ? `${rule.origin.protocol}//${rule.origin.host}` : '') + pattern(rule.from),
      to: target(rule.to),
      status: rule.status,
      force: rule.force,
      query: Object.fromEntries((rule.query ?? []).map(({ name, variable, equals }) => [name, variable === undefined ? equals : written(variable)])),
      countries: rule.countries ?? [],
      languages: rule.languages ?? [],
    }));
    expect(ours).toEqual(theirs);
  }

  it('_headers: every rule of the corpus (≥ 40 lines) the same fields', async () => {
    const text = corpus('_headers');
    expect(text.split('\n').filter((line) => /^\s*[^#\s]/.test(line)).length).toBeGreaterThanOrEqual(40);
    const reference = await withFile('_headers', text, (path) => parseAllHeaders({ headersFiles: [path] as never[], netlifyConfigPath: undefined, minimal: true }));
    expect(reference.errors).toEqual([]);
    const theirs = (reference.headers as unknown as NetlifyHeaders[]).map((rule) => ({ for: rule.for, values: rule.values }));
    const ours = parseHeadersFile(text)
      .filter((rule) => Object.keys(rule.fields).length > 0)
      .map((rule) => ({
        for: pattern(rule.uri),
        values: Object.fromEntries(Object.entries(rule.fields).map(([name, values]) => [name, values.map(target).join(', ')])),
      }));
    expect(ours).toEqual(theirs);
  });
});
