/**
 * Checks of the settings against the bindings wrangler.toml declares beside them, which the Worker
 * cannot read: `npm start` and `npm run deploy:check` run them before the service starts.
 * Like ./settings.ts, no runtime imports but that one, so Node loads it as it is.
 */
import { InvalidSetting, type Settings } from './settings.ts';

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

/** The period of the API's rate limit bindings: their settings count requests per minute. */
export const rateLimitPeriodSeconds = 60;

/** A rate limit binding as wrangler.toml declares it. */
export interface RateLimitBinding {
  name: string;
  simple: { limit: number; period: number };
}

/**
 * Each rate limit binding must count per minute and allow what its setting says: the Worker
 * names the setting and its value in a 429, and cannot read a binding's configuration.
 */
export function checkRateLimits(settings: Settings, bindings: readonly RateLimitBinding[]): void {
  const expected = [
    ['API_REQUESTS_PER_MINUTE', 'USER_RATE_LIMITER', settings.apiRequestsPerMinute],
    ['ANONYMOUS_REQUESTS_PER_MINUTE', 'ADDRESS_RATE_LIMITER', settings.anonymousRequestsPerMinute],
    ['SIGN_IN_ATTEMPTS_PER_MINUTE', 'SIGN_IN_RATE_LIMITER', settings.protection.signInAttemptsPerMinute],
  ] as const;
  for (const [setting, name, limit] of expected) {
    const binding = bindings.find((candidate) => candidate.name === name);
    if (binding?.simple.limit !== limit || binding.simple.period !== rateLimitPeriodSeconds) {
      const found = binding ? `limit ${binding.simple.limit}, period ${binding.simple.period}` : 'missing';
      throw new InvalidSetting(setting, limit, `the limit of the [[ratelimits]] binding ${name}, whose period is ${rateLimitPeriodSeconds} (found: ${found})`);
    }
  }
}
