/**
 * The settings of protected sites (docs/design.md, "Protected sites"), parsed with the others by
 * ./settings.ts. Like it, no runtime imports but ./setting-values.ts, so Node loads it as it is.
 */
import type { SettingVars } from './settings.ts';
import { InvalidSetting, wholeNumber } from './setting-values.ts';

/** The vars of protected sites, as wrangler passes them: part of ./settings.ts's `SettingVars`. */
export interface ProtectionVars {
  NEW_SITE_PREVIEWS?: unknown;
  SHARE_LINK_MAX_SECONDS?: unknown;
  SIGN_IN_ATTEMPTS_PER_MINUTE?: unknown;
  SITE_PASSWORD_MIN_LENGTH?: unknown;
  MAX_CREDENTIAL_HEADER_BYTES?: unknown;
}

export interface ProtectionSettings {
  /** Who may open the previews of a site made from now on, until its owner says otherwise. */
  newSitePreviews: 'public' | 'members';
  /** The longest a share link may open its host, in seconds. */
  shareLinkMaxSeconds: number;
  /** Password sign-in attempts per client address per minute: the limit of the SIGN_IN_RATE_LIMITER binding. */
  signInAttemptsPerMinute: number;
  /** The shortest site password, in characters. */
  passwordMinLength: number;
  /** The longest `Cookie` or `Authorization` field a protected host reads: longer is refused with 431. */
  maxCredentialHeaderBytes: number;
}

export function protectionSettings(vars: SettingVars): ProtectionSettings {
  const previews = vars.NEW_SITE_PREVIEWS;
  if (previews !== 'public' && previews !== 'members') throw new InvalidSetting('NEW_SITE_PREVIEWS', previews, '"members" or "public"');
  return {
    newSitePreviews: previews,
    shareLinkMaxSeconds: wholeNumber(vars, 'SHARE_LINK_MAX_SECONDS', 60),
    signInAttemptsPerMinute: wholeNumber(vars, 'SIGN_IN_ATTEMPTS_PER_MINUTE', 1),
    passwordMinLength: wholeNumber(vars, 'SITE_PASSWORD_MIN_LENGTH', 1),
    maxCredentialHeaderBytes: wholeNumber(vars, 'MAX_CREDENTIAL_HEADER_BYTES', 256),
  };
}
