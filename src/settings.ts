/**
 * The Worker's settings: wrangler.toml's vars (and `--var` or dashboard overrides), which arrive
 * as strings, parsed and checked once into typed values. A bad value is refused with its name
 * rather than read as `NaN`, which would quietly switch a limit off.
 *
 * No runtime imports: `npm start` (scripts/start.mjs) loads this file under Node to refuse a bad
 * setting before the service starts.
 */

/** The vars this module reads, as wrangler passes them. */
export interface SettingVars {
  API_HOSTNAMES?: unknown;
  MAX_FILES?: unknown;
  MAX_TOTAL_BYTES?: unknown;
  MAX_FILE_BYTES?: unknown;
  CERT_RETRY_BASE_SECONDS?: unknown;
  CERT_JOB_MAX_RETRIES?: unknown;
  RETIRED_DEPLOYMENT_GRACE_SECONDS?: unknown;
  EVENTS_RETENTION_DAYS?: unknown;
}

export interface Settings {
  /** Hosts that reach the API; every other Host is a hosted site. Lower case. */
  apiHostnames: readonly string[];
  /** A deploy's limits (and a single file's, for `PUT .../files/<path>`). */
  maxFiles: number;
  maxTotalBytes: number;
  maxFileBytes: number;
  /** First retry delay of a failed certificate job; it doubles with each further retry. */
  certRetryBaseSeconds: number;
  /** The certificate queue consumer's `max_retries`: the attempt after which a job has failed. */
  certJobMaxRetries: number;
  /** How long a replaced deployment's objects stay for reads in flight. */
  retiredDeploymentGraceSeconds: number;
  /** Days of event history kept for replay. */
  eventsRetentionDays: number;
}

/** A setting whose value cannot be used; the message names it and says what it must be. */
export class InvalidSetting extends Error {
  override name = 'InvalidSetting';
  readonly setting: keyof SettingVars;

  // Plain fields, not parameter properties: Node's type stripping (scripts/start.mjs) cannot compile those.
  constructor(setting: keyof SettingVars, value: unknown, expected: string) {
    super(`The setting ${setting} is ${JSON.stringify(value)}; it must be ${expected}.`);
    this.setting = setting;
  }
}

/** A whole number from `min` up, written in decimal digits (no sign, exponent or fraction). */
function wholeNumber(vars: SettingVars, setting: keyof SettingVars, min: number): number {
  const value = vars[setting];
  const text = typeof value === 'number' ? String(value) : value;
  const parsed = typeof text === 'string' && /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min) {
    throw new InvalidSetting(setting, value, `a whole number of at least ${min}`);
  }
  return parsed;
}

function hostnameList(vars: SettingVars, setting: keyof SettingVars): string[] {
  const value = vars[setting];
  if (typeof value !== 'string') throw new InvalidSetting(setting, value, 'comma-separated hostnames');
  const names = value.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  if (names.length === 0 || names.some((name) => !URL.canParse(`http://${name}/`))) {
    throw new InvalidSetting(setting, value, 'comma-separated hostnames, at least one');
  }
  return names;
}

export function parseSettings(vars: SettingVars): Settings {
  return {
    apiHostnames: hostnameList(vars, 'API_HOSTNAMES'),
    maxFiles: wholeNumber(vars, 'MAX_FILES', 1),
    maxTotalBytes: wholeNumber(vars, 'MAX_TOTAL_BYTES', 1),
    maxFileBytes: wholeNumber(vars, 'MAX_FILE_BYTES', 1),
    certRetryBaseSeconds: wholeNumber(vars, 'CERT_RETRY_BASE_SECONDS', 1),
    certJobMaxRetries: wholeNumber(vars, 'CERT_JOB_MAX_RETRIES', 0),
    retiredDeploymentGraceSeconds: wholeNumber(vars, 'RETIRED_DEPLOYMENT_GRACE_SECONDS', 0),
    eventsRetentionDays: wholeNumber(vars, 'EVENTS_RETENTION_DAYS', 1),
  };
}

/** By the vars object: the runtime hands the same `env` to every request of an isolate. */
const parsed = new WeakMap<object, Settings>();

/** The settings of `env`, parsed on first use; throws `InvalidSetting` for a bad value. */
export function settingsOf(env: SettingVars): Settings {
  let settings = parsed.get(env);
  if (!settings) {
    settings = parseSettings(env);
    parsed.set(env, settings);
  }
  return settings;
}

/** The certificate consumer's `max_retries` must be `CERT_JOB_MAX_RETRIES`: the Worker cannot read the queue's. */
export function checkCertificateRetries(settings: Settings, queueMaxRetries: number | undefined): void {
  if (queueMaxRetries !== settings.certJobMaxRetries) {
    throw new InvalidSetting(
      'CERT_JOB_MAX_RETRIES',
      settings.certJobMaxRetries,
      `equal to the certificate queue consumer's max_retries (${queueMaxRetries ?? 'not set'})`,
    );
  }
}
