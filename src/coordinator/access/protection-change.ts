/**
 * Who may open a site's hosts (src/protection/site-protection.ts), as the coordinator commits it:
 * a change like a suspension, so the live record carries it to every location before the change
 * answers (./freshness.ts), serving reads it with the record it reads anyway, and it is announced
 * once. Only the owner changes it.
 */
import { Problem } from '../../http/problem';
import { settingsOf } from '../../platform/settings';
import type { StoredPassword } from '../../protection/password-hash';
import { type PreviewMode, type SiteMode, type SiteProtection, defaultProtection } from '../../protection/site-protection';
import { type SiteRecord, setProtection } from '../../storage/sites-table';
import type { SiteState } from '../commit/site-state';
import type { Requester } from './access';

export type ProtectionChange =
  /** `password`: a new one, hashed by the Worker; undefined keeps the one stored. */
  | { kind: 'set'; previews: PreviewMode; site: SiteMode; password?: StoredPassword }
  /** Signs every visitor out: every share link and sign-in made so far opens nothing. */
  | { kind: 'revoke' };

/** The protection `site` is served with: its own, else the service's default for new sites. */
export function protectionOf(site: Pick<SiteRecord, 'protection'>, newSitePreviews: PreviewMode): SiteProtection {
  return site.protection ?? defaultProtection(newSitePreviews);
}

/** Commits `change` to `domain`, which `requester` owns (checked here, under the coordinator's lock); answers the protection as stored. */
export async function changeProtection(state: SiteState, domain: string, requester: Requester, change: ProtectionChange): Promise<SiteProtection> {
  const site = await state.changeable(domain, requester, 'own');
  const current = protectionOf(site, settingsOf(state.env).protection.newSitePreviews);
  // A new epoch is later than any before, also one set in the same millisecond.
  const newEpoch = () => Math.max(Date.now(), current.epoch + 1);
  let next: SiteProtection;
  if (change.kind === 'revoke') next = { ...current, epoch: newEpoch() };
  else {
    const password = change.password ?? current.password;
    if (change.site === 'password' && password === null) {
      throw new Problem('invalid-request', `${domain} has no password yet: send "password" with "site": "password".`, { errors: [{ pointer: '/password', message: 'required' }] });
    }
    next = { previews: change.previews, site: change.site, password, epoch: change.password ? newEpoch() : current.epoch };
  }
  const signedOut = next.epoch !== current.epoch;
  if (!signedOut && next.previews === current.previews && next.site === current.site && site.protection) return current;
  await state.commits.commit(domain, [setProtection(state.env.DB, domain, next)], { ...site, protection: next }, {
    now: [{ kind: 'notify', event: { type: 'protection-update', domain, previews: next.previews, site: next.site, signedOut } }],
  });
  return next;
}
