/**
 * Every Markdown link in README.md, CONTRIBUTING.md and docs/*.md resolves: a relative link names a
 * file or folder that exists, and its `#anchor` a heading of the target, slugged as GitHub slugs
 * headings (github-slugger, with GitHub's `-1`, `-2` for repeated headings). Links to other sites
 * are not fetched.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { type Token, type Tokens, lexer, walkTokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { markdownFiles, repo } from './markdown';

/** A heading's text as GitHub renders it before slugging: code and emphasis marks dropped. */
function plainText(tokens: readonly Token[]): string {
  return tokens
    .map((token) => ('tokens' in token && token.tokens ? plainText(token.tokens) : 'text' in token ? String(token.text) : ''))
    .join('');
}

/** The anchors a Markdown file's headings make. */
export function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  walkTokens(lexer(markdown), (token) => {
    if (token.type === 'heading') anchors.add(slugger.slug(plainText((token as Tokens.Heading).tokens)));
  });
  return anchors;
}

/** Each link of a Markdown file, in `file`'s folder, that names no file, or a heading its target lacks. */
export function brokenLinks(file: string, markdown: string, read: (path: string) => string | undefined): string[] {
  const hrefs: string[] = [];
  walkTokens(lexer(markdown), (token) => {
    if (token.type === 'link' || token.type === 'image') hrefs.push((token as Tokens.Link).href);
  });
  return hrefs.filter((href) => {
    if (/^[a-z][a-z+.-]*:/i.test(href)) return false;
    const [path = '', anchor] = href.split('#', 2);
    const target = path === '' ? file : join(dirname(file), decodeURI(path));
    const content = path === '' ? markdown : read(target);
    if (content === undefined) return true;
    return anchor !== undefined && target.endsWith('.md') && !anchorsOf(content).has(decodeURIComponent(anchor));
  });
}

function readFromRepo(path: string): string | undefined {
  const full = join(repo, path);
  if (relative(repo, full).startsWith('..') || !existsSync(full)) return undefined;
  return full.endsWith('.md') ? readFileSync(full, 'utf8') : '';
}

describe('the links of the documentation', () => {
  it.each(markdownFiles)('every link in %s resolves', (file) => {
    expect(brokenLinks(file, readFileSync(join(repo, file), 'utf8'), readFromRepo)).toEqual([]);
  });

  it('finds a link to a missing file, and to a heading its target lacks', () => {
    const files: Record<string, string> = { 'docs/a.md': '# A\n\n## Where it goes\n', 'docs/b.md': '' };
    const markdown = [
      '[ok](a.md#where-it-goes) [ok](#b) [ok](https://example.com/x#y)',
      '[missing file](c.md) [missing heading](a.md#where-it-went) [missing here](#nowhere)',
      '| table | [in a cell](../nothing.md) |\n|---|---|',
      '# B',
    ].join('\n\n');
    expect(brokenLinks('docs/b.md', markdown, (path) => files[path])).toEqual(['c.md', 'a.md#where-it-went', '#nowhere', '../nothing.md']);
  });

  it('slugs headings as GitHub does', () => {
    expect([...anchorsOf('# Deploy: `PUT /v2/sites/<domain>`\n## Serving at the edge: `npm run bench:edge`\n## A\n## A\n')]).toEqual([
      'deploy-put-v2sitesdomain',
      'serving-at-the-edge-npm-run-benchedge',
      'a',
      'a-1',
    ]);
  });
});
