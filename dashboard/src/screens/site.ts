import type { Deployment, Identity, SiteInfo, SiteMembers } from '../../../src/common/api-types';
import { messageSummary } from '../../../src/common/deployment-labels';
import { formatBytes } from '../../../src/common/format-bytes';
import { sitePath } from '../../../src/common/site-paths';
import { ApiError } from '../../../src/common/received-problem';
import { request } from '../api';
import { fill, h } from '../dom';
import { followEvents, type ServiceEvent } from '../events';
import { distinctTimes, timeElement } from '../format';
import { link } from '../router';
import { errorMessage, heading, type Screen, type ScreenContext } from '../screen';
import { siteUrl } from '../../../src/common/site-url';
import { unpublish } from './sites';
import { deploymentsList } from '../deployments';
import { membersCard } from '../members';
import { suspensionCard } from '../suspension';
import { trafficCard } from '../traffic';
import { trustCard } from '../trust';
import { type UserSuspensionCard, userSuspensionCard } from '../user-suspension';
import { opensWithShareLink } from '../share';
import { protectionCard } from '../protection';

const SHOWN_EVENTS = 50;
/** How often a page without live events (a token without global_read) asks whether the site changed. */
const CHECK_INTERVAL_MS = 10_000;

/** What the page shows of a site that a change elsewhere would alter. */
function shownVersion(info: SiteInfo): string {
  return JSON.stringify([info.modified, info.deployment?.id, info.certificate.status, info.suspension, info.userSuspension]);
}

/** One site: its deployment, certificate status and live events, and the ways to change it. */
export function siteScreen(context: ScreenContext, domain: string): Screen {
  const feedback = h('div', {});
  const details = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading…'));
  const certificate = h('div', { id: 'certificate' }, h('p', {}, 'Loading…'));
  const streamState = h('p', { id: 'events-state', class: 'hint' }, 'Connecting…');
  const deployments = deploymentsList(domain, feedback);
  const eventList = h('ol', { id: 'events', class: 'events', 'aria-live': 'polite', 'aria-relevant': 'additions' });

  let shown: string | undefined;
  let lastInfo: SiteInfo | undefined;
  /** An operator's controls over the site's owner, once whoami says the token is an operator's. */
  let ownerControls: UserSuspensionCard | undefined;

  function renderInfo(info: SiteInfo): void {
    shown = shownVersion(info);
    lastInfo = info;
    ownerControls?.show(info.userId, info.userSuspension);
    details.removeAttribute('aria-busy');
    const live = info.deployment;
    const said = h('span', { id: 'live-message' });
    fill(
      details,
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Live deployment'),
        h('dd', { id: 'live-deployment' }, live ? [h('code', {}, live.id), said] : 'None: nothing is live yet'),
        live && [h('dt', {}, 'Files'), h('dd', {}, `${live.fileCount} (${formatBytes(live.totalBytes)})`)],
        // One time when they agree (a first deploy); the site's creation and last change only when they read otherwise.
        distinctTimes([
          ['Deployed', live?.created],
          ['Last change', info.modified],
          ['Site created', info.created],
        ]),
        h('dt', {}, 'Owner'),
        h('dd', {}, info.userId),
        info.suspension && [h('dt', {}, 'Suspended'), h('dd', { id: 'suspended' }, `since `, timeElement(info.suspension.since), `: ${info.suspension.reason}`)],
        info.userSuspension && [h('dt', {}, 'Owner suspended'), h('dd', { id: 'owner-suspended' }, `since `, timeElement(info.userSuspension.since), `: ${info.userSuspension.reason}`)],
      ),
    );
    if (live) describeLive(live.id, said);
    const cert = info.certificate;
    fill(
      certificate,
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Status'),
        h('dd', {}, h('span', { class: `badge ${cert.status}` }, cert.status)),
        cert.reason && [h('dt', {}, 'Reason'), h('dd', {}, cert.reason)],
        h('dt', {}, 'Issued'),
        h('dd', {}, timeElement(cert.issued)),
        h('dt', {}, 'Expires'),
        h('dd', {}, timeElement(cert.expires)),
      ),
    );
  }

  /** The live deployment's message and maker, from the deployment itself (the list below may not hold it: a rollback to an old one). */
  function describeLive(id: string, said: HTMLElement): void {
    request<Deployment>('GET', sitePath(domain, `/deployments/${encodeURIComponent(id)}`)).then(
      (deployment) => {
        const how = [deployment.client, deployment.source].filter(Boolean).join(' ');
        fill(said, deployment.message && [' ', h('q', {}, messageSummary(deployment.message, 80))], h('span', { class: 'hint' }, ` by ${deployment.createdBy}${how ? ` (${how})` : ''}`));
      },
      // Collected by a change made meanwhile: that change's event or check renders the card again.
      () => undefined,
    );
  }

  function renderInfoError(error: unknown): void {
    shown = undefined;
    details.removeAttribute('aria-busy');
    fill(details, errorMessage(error));
    fill(certificate);
  }

  function loadInfo(): void {
    request<SiteInfo>('GET', sitePath(domain, '/info')).then(renderInfo, renderInfoError);
  }

  function showEvent(event: ServiceEvent): void {
    if (event.data.domain !== domain) return;
    const facts = Object.entries(event.data)
      .filter(([name]) => name !== 'type' && name !== 'domain')
      .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(', ');
    eventList.prepend(h('li', {}, h('strong', {}, event.type), ' ', timeElement(new Date().toISOString()), facts && h('div', { class: 'hint' }, facts)));
    while (eventList.children.length > SHOWN_EVENTS) eventList.lastElementChild?.remove();
    loadInfo();
    // Deploys, rollbacks, file and configuration edits: each names the deployment it made live.
    if ('deploymentId' in event.data || event.type === 'site-delete') deployments.reload();
  }

  /**
   * Without live events: every CHECK_INTERVAL_MS while the tab is visible, the site's info; a
   * change reloads the deployments too. A site gone or not the user's (404, 403) ends the checks
   * with what the service said; any other failure (the network, a 5xx, a 429) may pass: asked again.
   */
  async function checkForChanges(): Promise<void> {
    const { signal } = context;
    while (!signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, CHECK_INTERVAL_MS));
      if (signal.aborted || document.visibilityState !== 'visible') continue;
      let info: SiteInfo;
      try {
        info = await request<SiteInfo>('GET', sitePath(domain, '/info'));
      } catch (error) {
        if (signal.aborted || !(error instanceof ApiError) || (error.status !== 403 && error.status !== 404)) continue;
        renderInfoError(error);
        deployments.reload();
        streamState.textContent = `This page no longer checks for changes: ${error.message}`;
        return;
      }
      if (signal.aborted || shownVersion(info) === shown) continue;
      renderInfo(info);
      deployments.reload();
    }
  }

  loadInfo();
  void followEvents(context.signal, showEvent, (state) => {
    if (state.state === 'connecting') streamState.textContent = 'Connecting…';
    else if (state.state === 'live') streamState.textContent = 'Live: changes to this site appear here as they happen.';
    else {
      const reason = /[.!?]$/.test(state.reason) ? state.reason : `${state.reason}.`;
      streamState.textContent = `Live events are not available: ${reason} This page checks for changes every ${CHECK_INTERVAL_MS / 1000} seconds.`;
      void checkForChanges();
    }
  });

  // Who is looking: the owner manages members and trust; an operator (admin) gets the suspension controls, the site's and its owner's.
  const me = request<Identity>('GET', '/v2/whoami');
  const isOwner = me.then(
    async (identity) => (await request<SiteMembers>('GET', sitePath(domain, '/members'))).owner.userId === identity.userId,
    () => false,
  ).catch(() => false);
  const operatorControls = h('div', {});
  void me.then((identity) => {
    if (!identity.scopes.includes('admin')) return;
    ownerControls = userSuspensionCard('Operator: the owner’s suspension', loadInfo);
    if (lastInfo) ownerControls.show(lastInfo.userId, lastInfo.userSuspension);
    fill(operatorControls, suspensionCard(domain, loadInfo), ownerControls.element);
  }, () => undefined);

  const unpublishButton = h('button', { type: 'button', class: 'danger' }, 'Unpublish');
  unpublishButton.addEventListener('click', async () => {
    if (await unpublish(domain, feedback)) location.hash = link({ screen: 'sites' });
  });

  const element = h(
    'div',
    {},
    h('p', { class: 'breadcrumb' }, h('a', { href: link({ screen: 'sites' }) }, 'My sites')),
    heading(domain),
    h(
      'p',
      { class: 'links' },
      opensWithShareLink(h('a', { class: 'button', href: siteUrl(location, domain), target: '_blank', rel: 'noopener' }, 'Open site'), domain, {}),
      h('a', { href: link({ screen: 'files', domain, directory: '/' }) }, 'Files'),
      h('a', { href: link({ screen: 'configuration', domain }) }, 'Configuration'),
      h('a', { href: link({ screen: 'rules', domain }) }, 'Rules'),
      h('a', { href: link({ screen: 'deploy', domain }) }, 'Deploy a new version'),
      unpublishButton,
    ),
    feedback,
    h(
      'div',
      { class: 'columns' },
      h('section', { class: 'card', 'aria-labelledby': 'deployment-heading' }, h('h2', { id: 'deployment-heading' }, 'Deployment'), details),
      h('section', { class: 'card', 'aria-labelledby': 'certificate-heading' }, h('h2', { id: 'certificate-heading' }, 'Certificate'), certificate),
    ),
    h('section', { class: 'card', 'aria-labelledby': 'deployments-heading' }, h('h2', { id: 'deployments-heading' }, 'Deployments'), deployments.element),
    trafficCard(domain, context.signal),
    membersCard(domain, isOwner),
    trustCard(domain, isOwner),
    protectionCard(domain, isOwner),
    operatorControls,
    h('section', { class: 'card', 'aria-labelledby': 'events-heading' }, h('h2', { id: 'events-heading' }, 'Live events'), streamState, eventList),
  );
  return { title: domain, element };
}
