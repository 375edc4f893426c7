/**
 * Who may open a site's hosts (docs/design.md, "Protected sites"): its previews (every
 * deployment's own host and its alias hosts) and the site itself (its domain). Stored with the
 * site and carried in its live record, so serving reads it with the record it reads anyway.
 */
import type { StoredPassword } from './password-hash';

export const previewModes = ['public', 'members'] as const;
export type PreviewMode = (typeof previewModes)[number];
export const siteModes = ['public', 'members', 'password'] as const;
export type SiteMode = (typeof siteModes)[number];

export interface SiteProtection {
  previews: PreviewMode;
  site: SiteMode;
  /** Set while `site` is `password` (and kept when it changes, until replaced). */
  password: StoredPassword | null;
  /** Moved (to the time it was moved, in ms) to sign every visitor out: grants name the epoch they were made in. */
  epoch: number;
}

/** A site with no protection stored: one made after protection existed, with the service's default for previews (NEW_SITE_PREVIEWS). */
export function defaultProtection(previews: PreviewMode): SiteProtection {
  return { previews, site: 'public', password: null, epoch: 0 };
}

/** How a host of the site is protected: its domain as `site` says; a preview host as `previews` says, and never less than the site. */
export function hostMode(protection: SiteProtection, preview: boolean): SiteMode {
  if (!preview) return protection.site;
  return protection.previews === 'members' ? 'members' : protection.site;
}

/**
 * The epoch a grant must name: the site's creation time with its protection epoch, so that a
 * grant of a site since unpublished opens nothing of a site claimed again on the same domain.
 */
export function grantEpoch(siteCreated: number, protection: SiteProtection): string {
  return `${siteCreated}.${protection.epoch}`;
}
