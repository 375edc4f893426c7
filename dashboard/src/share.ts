import type { ShareLink } from '../../src/common/protection-types';
import { sitePath } from '../../src/common/site-paths';
import { request } from './api';

/** What a link of the dashboard opens: the site, one deployment's host or an alias host. */
export type ShareTarget = { deploymentId: string } | { alias: string } | Record<string, never>;

/** How long a link the dashboard opens works: an hour, enough to look, short if it leaks from history. */
const openFor = 3600;

/**
 * Makes `anchor` (a link to one of the site's hosts, opening in a new tab) mint a share link as it
 * is clicked, so that a member opens a protected host in any browser: the tab is opened at once
 * (a tab opened after an await is a popup to blockers), then sent to the share link, or to the
 * plain address when the host is public or no link can be made.
 */
export function opensWithShareLink(anchor: HTMLAnchorElement, domain: string, target: ShareTarget): HTMLAnchorElement {
  anchor.addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    const tab = window.open('about:blank', '_blank');
    if (tab) tab.opener = null;
    const address = anchor.href;
    request<ShareLink>('POST', sitePath(domain, '/share'), { json: { ...target, expiresIn: openFor } })
      .then((link) => (link.protected ? link.url : address))
      .catch(() => address)
      .then((url) => {
        if (tab) tab.location.href = url;
        else window.location.href = url;
      });
  });
  return anchor;
}
