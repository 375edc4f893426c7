// The answers of protected sites' endpoints (docs/api.md, "Protected sites"), shared like ./api-types.ts.
import type { Timestamp } from './api-types.ts';

/** Who may open a site's hosts (`GET`/`PUT /v2/sites/<domain>/protection`); the password itself is never shown. */
export interface SiteProtectionView {
  /** Every deployment's own host and alias hosts: anyone, or only through a member's share link. */
  previews: 'public' | 'members';
  /** The site's domain: anyone, a member's share link, or a share link or the site's password. */
  site: 'public' | 'members' | 'password';
  passwordSet: boolean;
  /** When every share link and sign-in made before stopped opening the site (a revocation or a new password); null: never. */
  signedOutAt: Timestamp | null;
}

/** `POST /v2/sites/<domain>/share`: a link that opens one host of the site until `expiresAt`. */
export interface ShareLink {
  url: string;
  expiresAt: Timestamp;
  /** Whether the host needs a grant now: false when anyone may open it (the link works all the same). */
  protected: boolean;
}
