import type { DeployResult, Deployment, DeploymentPage } from '../../src/common/api-types';
import { aliasHostNote } from '../../src/common/deployment-labels';
import { provenanceSummary } from '../../src/common/provenance';
import { formatBytes } from '../../src/common/format-bytes';
import { sitePath } from '../../src/common/site-paths';
import { request } from './api';
import { confirmAction } from './dialog';
import { announce, fill, h } from './dom';
import { timeElement } from './format';
import { link } from './router';
import { errorMessage } from './screen';
import { opensWithShareLink } from './share';

const deploymentsPath = (domain: string, rest = '') => sitePath(domain, `/deployments${rest}`);

/**
 * A site's kept deployments, newest first (one page, then "Show older"): the live one and the
 * previews never made live marked, each with when to the second, by whom, through what and how,
 * its message, alias, preview link and a "Make live" button that asks first.
 */
export function deploymentsList(domain: string, feedback: HTMLElement): { element: HTMLElement; reload(): void } {
  const element = h('div', { id: 'deployments', 'aria-busy': 'true' }, h('p', {}, 'Loading…'));
  let generation = 0;

  async function makeLive(deployment: Deployment): Promise<void> {
    const confirmed = await confirmAction({
      title: `Make deployment ${deployment.id} live?`,
      message: `${domain} will serve its ${deployment.fileCount} files (${formatBytes(deployment.totalBytes)}) on the next request. The deployment live now is kept: you can make it live again.`,
      confirmLabel: 'Make live',
      tone: 'primary',
    });
    if (!confirmed) return;
    try {
      await request<DeployResult>('POST', deploymentsPath(domain, `/${encodeURIComponent(deployment.id)}/activate`));
      announce(`Deployment ${deployment.id} is live.`);
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, `Deployment ${deployment.id} is live on ${domain}.`));
      reload();
    } catch (error) {
      fill(feedback, errorMessage(error));
    }
  }

  function row(deployment: Deployment): HTMLTableRowElement {
    // A preview never made live is marked as one; a deployment that was live is not.
    const preview = !deployment.live && deployment.preview && deployment.liveUntil === null;
    const makeLiveButton = h('button', { type: 'button', class: 'small', 'aria-label': `Make deployment ${deployment.id} live`, onclick: () => void makeLive(deployment) }, 'Make live');
    const status = deployment.live ? h('span', { class: 'badge issued' }, 'Live') : [preview && h('span', { class: 'badge preview' }, 'Preview'), ' ', makeLiveButton];
    const newTab = (label: string) => h('span', { class: 'visually-hidden' }, ` ${label} (new tab)`);
    return h(
      'tr',
      { 'data-deployment': deployment.id, 'data-live': deployment.live ? 'true' : null, 'data-preview': preview ? 'true' : null },
      h('th', { scope: 'row', 'data-label': 'Deployment' }, h('code', {}, deployment.id)),
      h('td', { 'data-label': 'Created' }, timeElement(deployment.createdAt, { seconds: true })),
      h('td', { 'data-label': 'By' }, deployment.createdBy),
      h('td', { 'data-label': 'Via', class: 'provenance' }, provenanceSummary(deployment.provenance)),
      h('td', { 'data-label': 'Source' }, [deployment.client, deployment.source].filter(Boolean).join(' ')),
      h('td', { 'data-label': 'Message', class: 'message' }, deployment.message ?? ''),
      h('td', { 'data-label': 'Alias' }, deployment.alias && deployment.aliasUrl ? opensWithShareLink(h('a', { href: deployment.aliasUrl, target: '_blank', rel: 'noopener' }, deployment.alias, newTab(`alias of ${deployment.id}`)), domain, { alias: deployment.alias }) : ''),
      h('td', { 'data-label': 'Files' }, `${deployment.fileCount} (${formatBytes(deployment.totalBytes)})`),
      h(
        'td',
        { 'data-label': 'Preview' },
        h('div', { class: 'row-actions' }, opensWithShareLink(h('a', { href: deployment.previewUrl, target: '_blank', rel: 'noopener' }, 'Preview', newTab(deployment.id)), domain, { deploymentId: deployment.id }), h('a', { href: link({ screen: 'rules', domain, deployment: deployment.id }), 'aria-label': `Rules of deployment ${deployment.id}` }, 'Rules')),
      ),
      h('td', { 'data-label': 'Live' }, status),
    );
  }

  function render(page: DeploymentPage, body: HTMLTableSectionElement, mine: number): void {
    if (mine !== generation) return;
    body.append(...page.deployments.map(row));
    const aliased = page.deployments.find((deployment) => deployment.aliasUrl);
    const note = aliased?.aliasUrl && aliasHostNote(domain, aliased.aliasUrl);
    if (note && !element.querySelector('#alias-note')) element.append(h('p', { class: 'hint', id: 'alias-note' }, note));
    element.querySelector('.more')?.remove();
    if (page.next === null) return;
    const next = page.next;
    const more = h('button', { type: 'button', class: 'secondary more' }, 'Show older deployments');
    more.addEventListener('click', () => load(`?cursor=${encodeURIComponent(next)}`, body, mine));
    element.append(more);
  }

  function load(query: string, body: HTMLTableSectionElement, mine: number): void {
    request<DeploymentPage>('GET', deploymentsPath(domain, query)).then(
      (page) => render(page, body, mine),
      (error: unknown) => mine === generation && fill(element, errorMessage(error)),
    );
  }

  function reload(): void {
    generation += 1;
    const mine = generation;
    const body = h('tbody', {});
    request<DeploymentPage>('GET', deploymentsPath(domain)).then(
      (page) => {
        if (mine !== generation) return;
        element.removeAttribute('aria-busy');
        if (page.deployments.length === 0) return fill(element, h('p', {}, 'No deployments yet.'));
        const columns = ['Deployment', 'Created', 'By', 'Via', 'Source', 'Message', 'Alias', 'Files', 'Preview', 'Live'];
        fill(
          element,
          h(
            'table',
            { class: 'responsive' },
            h('caption', { class: 'visually-hidden' }, `Deployments of ${domain}, newest first`),
            h('thead', {}, h('tr', {}, columns.map((column) => h('th', { scope: 'col' }, column)))),
            body,
          ),
        );
        render(page, body, mine);
      },
      (error: unknown) => {
        if (mine !== generation) return;
        element.removeAttribute('aria-busy');
        fill(element, errorMessage(error));
      },
    );
  }

  reload();
  return { element, reload };
}
