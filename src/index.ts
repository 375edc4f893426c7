import { api } from './api';
import { answerAcmeChallenge } from './certificates/challenge';
import { queueCertificateRenewals } from './certificates/renewal';
import type { Env } from './platform/env';
import { Problem } from './http/problem';
import { log } from './platform/log';
import { consumeQueue } from './queues';
import { sweepOrphanedObjects } from './coordinator/sweeps/orphan-sweeps';
import { sweepExpiredTokens } from './auth/token-store';
import { sweepExchanges } from './storage/trust-table';
import { moveRowsOutOfD1 } from './coordinator/records/blob-moves';
import { InvalidSetting, type Settings, settingsOf } from './platform/settings';
import { previewNameOf, servePreview } from './serving/preview';
import { serveSite } from './serving/serve';
import { siteDomainOf } from './common/site-url';
import { forgetOldDeadLetters } from './storage/dead-letters';
import { forgetOldUnpublished } from './storage/configurations-feed';

export { CloudflareAccount } from './cloudflare-api/account';
export { SiteCoordinator } from './coordinator/coordinator';
export { EventLog } from './events/event-log';
export { WebhookReceiver } from './events/webhook-receiver';
export { SiteTraffic } from './traffic/site-traffic';
export { VisitorSalt } from './traffic/visitor-salt';

export default {
  fetch(request, env, ctx) {
    let settings: Settings;
    try {
      settings = settingsOf(env);
    } catch (error) {
      if (error instanceof InvalidSetting) return misconfigured(error);
      throw error;
    }
    const url = new URL(request.url);
    // A fully qualified name's trailing dot (`example.com.`) names the same host; URL lower-cases it already.
    const hostname = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
    if (settings.apiHostnames.includes(hostname)) return api.fetch(request, env, ctx);
    const preview = previewNameOf(hostname, settings.previewHostname);
    if (preview !== undefined) return servePreview(request, url, env, ctx, preview);
    const domain = siteDomainOf(hostname);
    return answerAcmeChallenge(request, url, env, domain) ?? serveSite(request, url, env, ctx, domain);
  },
  queue: consumeQueue,
  /** Daily: certificate renewals, the sweep of objects deploys cut before their commit left, forgetting old history and expired tokens, and moving per-domain rows out of D1. Each runs whether or not the others fail. */
  async scheduled(controller, env) {
    // Each runs to the end whatever the others do; a failure still fails the run (and is logged by the runtime).
    const runs = await Promise.allSettled([
      queueCertificateRenewals(controller, env),
      forgetOldDeadLetters(env.DB, controller.scheduledTime),
      forgetOldUnpublished(env.DB, controller.scheduledTime, settingsOf(env).configurationChangesRetentionDays),
      sweepOrphanedObjects(controller, env),
      sweepExpiredTokens(env.DB, controller.scheduledTime),
      sweepExchanges(env.DB, controller.scheduledTime),
      moveRowsOutOfD1(env),
    ]);
    for (const run of runs) if (run.status === 'rejected') throw run.reason;
  },
} satisfies ExportedHandler<Env>;

/** A bad setting answers every request with a 500 naming it, rather than running with a limit switched off. */
function misconfigured(error: InvalidSetting): Response {
  log.error('The service is misconfigured', { setting: error.setting, error });
  return new Problem('internal', error.message, { extensions: { setting: error.setting } }).toResponse();
}
