import type { DeploymentFallback, DeploymentHeaders, DeploymentRedirect, DeploymentRules, SiteInfo } from '../../../src/common/api-types';
import { sitePath } from '../../../src/common/site-paths';
import { request } from '../api';
import { fill, h } from '../dom';
import { link } from '../router';
import { errorMessage, heading, type Screen, type ScreenContext } from '../screen';

/**
 * A path, target or header value of a rule as its file writes it: the service keeps the rules of
 * `_redirects` and `_headers` as RFC 6570 templates (src/rules/rules-files.ts), `:name`
 * as `{name}` in a path and `{+name}` elsewhere (a name such as `lang:` percent-encoded, one
 * written again with `.2` after it, the empty one `%00`), `*` as `{+splat}`, and in paths and targets
 * literal braces percent-encoded. The host options' are templates as written.
 */
function asWritten(template: string, source: string, kind: 'path' | 'target' | 'value'): string {
  if (source === 'configuration') return template;
  const name = (_: string, variable: string) => placeholderOf(variable);
  const placeholders = kind === 'path' ? template.replace(/\{\+splat\}/g, '*').replace(/\{([\w%.]+)\}/g, name) : template.replace(/\{\+([\w%.]+)\}/g, name);
  return kind === 'value' ? placeholders : placeholders.replace(/%7B/gi, '{').replace(/%7D/gi, '}');
}

/** A file's placeholder as written (`:lang:`) for the variable the service keeps it as. */
function placeholderOf(variable: string): string {
  return `:${decodeURIComponent(variable.replace(/\.\d+$/, '').replace(/^%00$/, ''))}`;
}

/** Where a rule comes from, in words: the file it was read from, or the host options. */
function sourceOf(rule: { source: string }): HTMLElement {
  return rule.source === 'configuration' ? h('span', {}, 'host options') : h('code', {}, rule.source);
}

/** What a redirect rule does with its status: 3xx sends the browser on, 200 serves the target in place, 404/410 serve it as that error. */
function effectOf(rule: DeploymentRedirect): string {
  if (rule.status >= 300 && rule.status < 400) return `${rule.status} redirect`;
  if (rule.status === 200) return '200 rewrite (the address stays)';
  return `${rule.status} page`;
}

/** The conditions a redirect waits for besides its path, one phrase each. */
function conditionsOf(rule: DeploymentRedirect): string[] {
  return [
    rule.origin && `only on ${rule.origin.protocol}//${rule.origin.host}`,
    ...(rule.query ?? []).map(({ name, equals, variable }) => (equals !== undefined ? `?${name}=${equals}` : `?${name}${variable ? ` (as ${placeholderOf(variable)})` : ''}`)),
    rule.countries && `Country ${rule.countries.join(', ')}`,
    rule.languages && `Language ${rule.languages.join(', ')}`,
    rule.source === '_redirects' && (rule.force ? 'even where a file exists (!)' : 'only where no file exists'),
  ].filter((condition): condition is string => typeof condition === 'string');
}

function redirectsTable(rules: DeploymentRedirect[]): HTMLElement {
  if (rules.length === 0) return h('p', { class: 'hint' }, 'No redirects or rewrites.');
  return h(
    'table',
    { class: 'responsive', id: 'redirect-rules' },
    h('caption', { class: 'visually-hidden' }, 'Redirects and rewrites, in the order they are tried'),
    h('thead', {}, h('tr', {}, ['#', 'From', 'To', 'Does', 'When', 'Source'].map((name) => h('th', { scope: 'col' }, name)))),
    h(
      'tbody',
      {},
      rules.map((rule, index) =>
        h(
          'tr',
          { 'data-source': rule.source },
          h('th', { scope: 'row', 'data-label': '#' }, String(index + 1)),
          h('td', { 'data-label': 'From' }, h('code', {}, asWritten(rule.from, rule.source, 'path'))),
          h('td', { 'data-label': 'To' }, h('code', {}, asWritten(rule.to, rule.source, 'target'))),
          h('td', { 'data-label': 'Does' }, effectOf(rule)),
          h('td', { 'data-label': 'When' }, conditionsOf(rule).join('; ')),
          h('td', { 'data-label': 'Source' }, sourceOf(rule)),
        ),
      ),
    ),
  );
}

function headersTable(rules: DeploymentHeaders[]): HTMLElement {
  if (rules.length === 0) return h('p', { class: 'hint' }, 'No header rules.');
  const fieldLines = (rule: DeploymentHeaders) =>
    h(
      'ul',
      { class: 'plain' },
      rule.detach.map((name) => h('li', {}, h('code', {}, `! ${name}`), ' (removed)')),
      Object.entries(rule.fields).flatMap(([name, values]) => values.map((value) => h('li', {}, h('code', {}, `${name}: ${asWritten(value, rule.source, 'value')}`)))),
    );
  return h(
    'table',
    { class: 'responsive', id: 'header-rules' },
    h('caption', { class: 'visually-hidden' }, 'Header rules, in the order they apply'),
    h('thead', {}, h('tr', {}, ['#', 'Paths', 'Fields', 'Source'].map((name) => h('th', { scope: 'col' }, name)))),
    h(
      'tbody',
      {},
      rules.map((rule, index) =>
        h(
          'tr',
          { 'data-source': rule.source },
          h('th', { scope: 'row', 'data-label': '#' }, String(index + 1)),
          h('td', { 'data-label': 'Paths' }, rule.uri === null ? 'every file' : h('code', {}, asWritten(rule.uri, rule.source, 'path'))),
          h('td', { 'data-label': 'Fields' }, fieldLines(rule)),
          h('td', { 'data-label': 'Source' }, sourceOf(rule)),
        ),
      ),
    ),
  );
}

function fallbacksTable(fallbacks: DeploymentFallback[]): HTMLElement {
  return h(
    'table',
    { class: 'responsive', id: 'fallback-rules' },
    h('caption', { class: 'visually-hidden' }, 'Files that answer a path no file answers, in the order they are tried'),
    h('thead', {}, h('tr', {}, ['#', 'File', 'Status', 'For', 'Source'].map((name) => h('th', { scope: 'col' }, name)))),
    h(
      'tbody',
      {},
      fallbacks.map((fallback, index) =>
        h(
          'tr',
          { 'data-source': fallback.source },
          h('th', { scope: 'row', 'data-label': '#' }, String(index + 1)),
          h('td', { 'data-label': 'File' }, h('code', {}, fallback.path)),
          h('td', { 'data-label': 'Status' }, String(fallback.status)),
          h('td', { 'data-label': 'For' }, fallback.status < 300 ? 'page requests only' : 'any request'),
          h('td', { 'data-label': 'Source' }, fallback.source === 'default' ? 'default (no fallback names a 404 page)' : sourceOf(fallback)),
        ),
      ),
    ),
  );
}

/**
 * A deployment's rules, read-only (`GET .../deployments/<id>/rules`): the redirects and header
 * rules of its `_redirects`, `_headers` and host options, and its fallbacks, in the order the
 * service applies them.
 * Without a deployment id, the live deployment's.
 */
export function rulesScreen(_context: ScreenContext, domain: string, deploymentId?: string): Screen {
  const subject = h('p', { id: 'rules-deployment', class: 'hint' }, 'Loading…');
  const body = h('div', { 'aria-busy': 'true' });

  async function load(): Promise<void> {
    const id = deploymentId ?? (await request<SiteInfo>('GET', sitePath(domain, '/info'))).deployment?.id;
    if (!id) {
      fill(subject, `${domain} has no live deployment, so no rules apply.`);
      return;
    }
    const rules = await request<DeploymentRules>('GET', sitePath(domain, `/deployments/${encodeURIComponent(id)}/rules`));
    fill(subject, 'Deployment ', h('code', {}, rules.deploymentId), deploymentId ? '' : ' (live)', '.');
    fill(
      body,
      h(
        'p',
        { class: 'hint' },
        'Read-only. The rules of the files ',
        h('code', {}, '_redirects'),
        ' and ',
        h('code', {}, '_headers'),
        ' are read when a deployment is made (the files are never served), and shown as they write them; those of the host options come from its ',
        h('a', { href: link({ screen: 'configuration', domain }) }, 'configuration'),
        '. To change a rule, deploy the files again or edit the configuration.',
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'redirect-rules-heading' },
        h('h2', { id: 'redirect-rules-heading' }, 'Redirects and rewrites'),
        h('p', { class: 'hint' }, 'Tried in this order, _redirects first; the first that applies answers.'),
        redirectsTable(rules.redirects),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'header-rules-heading' },
        h('h2', { id: 'header-rules-heading' }, 'Headers'),
        h('p', { class: 'hint' }, 'Added to every answer that serves a file of a matching path, in this order: a later rule’s value replaces an earlier one’s.'),
        headersTable(rules.headers),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'fallback-rules-heading' },
        h('h2', { id: 'fallback-rules-heading' }, 'When no file matches'),
        h('p', { class: 'hint' }, 'Tried in this order for a path that no rule and no file answers; the first file that exists is served with its status.'),
        fallbacksTable(rules.fallbacks),
      ),
    );
  }

  load()
    .catch((error: unknown) => {
      fill(subject);
      fill(body, errorMessage(error));
    })
    .finally(() => body.removeAttribute('aria-busy'));

  const element = h(
    'div',
    {},
    h('p', { class: 'breadcrumb' }, h('a', { href: link({ screen: 'site', domain }) }, domain)),
    heading(`Rules of ${domain}`),
    subject,
    body,
  );
  return { title: `Rules · ${domain}`, element };
}
