import type { Site } from '../../../src/common/api-types';
import { sitePath } from '../../../src/common/site-paths';
import { request } from '../api';
import { confirmAction } from '../dialog';
import { announce, fill, h } from '../dom';
import { timeElement } from '../format';
import { link } from '../router';
import { errorMessage, heading, type Screen, type ScreenContext } from '../screen';
import { siteUrl } from '../../../src/common/site-url';
import { usageCard } from '../usage';
import { opensWithShareLink } from '../share';

/** Asks, then unpublishes; true when the site is gone. */
export async function unpublish(domain: string, feedback: HTMLElement): Promise<boolean> {
  const confirmed = await confirmAction({
    title: `Unpublish ${domain}?`,
    message: 'The site goes offline at once and its files and configuration are deleted. This cannot be undone.',
    confirmLabel: 'Unpublish',
  });
  if (!confirmed) return false;
  try {
    await request('DELETE', sitePath(domain));
    announce(`${domain} was unpublished.`);
    fill(feedback, h('div', { class: 'notice success', role: 'status' }, `${domain} was unpublished.`));
    return true;
  } catch (error) {
    fill(feedback, errorMessage(error));
    return false;
  }
}

/** My sites: every site the signed-in user owns or is a member of, newest change first. */
export function sitesScreen(_context: ScreenContext): Screen {
  const title = heading('My sites');
  const feedback = h('div', {});
  const body = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading your sites…'));
  const usage = usageCard();

  function row(site: Site): HTMLTableRowElement {
    // Only the owner unpublishes; a member's row says their role instead.
    const unpublishButton = site.role === 'owner' ? h('button', { type: 'button', class: 'danger small' }, 'Unpublish') : null;
    const tableRow = h(
      'tr',
      {},
      h('th', { scope: 'row', 'data-label': 'Site' }, h('a', { href: link({ screen: 'site', domain: site.domain }) }, site.domain)),
      h('td', { 'data-label': 'Role' }, site.role),
      h('td', { 'data-label': 'Modified' }, timeElement(site.modified)),
      h('td', { 'data-label': 'Live' }, opensWithShareLink(h('a', { href: siteUrl(location, site.domain), target: '_blank', rel: 'noopener' }, 'Open site', h('span', { class: 'visually-hidden' }, ` ${site.domain} (new tab)`)), site.domain, {})),
      h(
        'td',
        { 'data-label': 'Manage' },
        h(
          'div',
          { class: 'row-actions' },
          h('a', { href: link({ screen: 'files', domain: site.domain, directory: '/' }) }, 'Files'),
          h('a', { href: link({ screen: 'configuration', domain: site.domain }) }, 'Configuration'),
          unpublishButton,
        ),
      ),
    );
    unpublishButton?.addEventListener('click', async () => {
      if (!(await unpublish(site.domain, feedback))) return;
      tableRow.remove();
      usage.refresh();
      title.focus();
    });
    return tableRow;
  }

  request<Site[]>('GET', '/v2/sites').then(
    (sites) => {
      body.removeAttribute('aria-busy');
      if (sites.length === 0) {
        fill(body, h('p', {}, 'You have no sites yet. ', h('a', { href: link({ screen: 'deploy' }) }, 'Deploy your first site'), '.'));
        return;
      }
      const sorted = [...sites].sort((a, b) => b.modified.localeCompare(a.modified));
      fill(
        body,
        h(
          'table',
          { class: 'responsive' },
          h('caption', { class: 'visually-hidden' }, 'Your sites'),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Site'), h('th', { scope: 'col' }, 'Role'), h('th', { scope: 'col' }, 'Modified'), h('th', { scope: 'col' }, 'Live'), h('th', { scope: 'col' }, 'Manage'))),
          h('tbody', {}, sorted.map(row)),
        ),
      );
    },
    (error: unknown) => {
      body.removeAttribute('aria-busy');
      fill(body, errorMessage(error));
    },
  );

  const element = h('div', {}, h('div', { class: 'title-row' }, title, h('a', { class: 'button', href: link({ screen: 'deploy' }) }, 'Deploy a site')), feedback, body, usage.element);
  return { title: 'My sites', element };
}
