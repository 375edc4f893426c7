import { api } from './api';
import { answerAcmeChallenge } from './certificates/challenge';
import { queueCertificateRenewals } from './certificates/renewal';
import { apiHostnames } from './domain-name';
import type { Env } from './env';
import { consumeQueue } from './queues';
import { serveSite } from './sites/serve';
import { siteDomainOf } from './site-url';

export { SiteCoordinator } from './deploy/site-coordinator';
export { EventLog } from './events/event-log';
export { WebhookReceiver } from './events/webhook-receiver';

export default {
  fetch(request, env, ctx) {
    const url = new URL(request.url);
    // A fully qualified name's trailing dot (`example.com.`) names the same host; URL lower-cases it already.
    const hostname = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
    if (apiHostnames(env.API_HOSTNAMES).includes(hostname)) return api.fetch(request, env, ctx);
    const domain = siteDomainOf(hostname);
    return answerAcmeChallenge(request, url, env, domain) ?? serveSite(request, url, env, ctx, domain);
  },
  queue: consumeQueue,
  async scheduled(controller, env) {
    await queueCertificateRenewals(controller, env);
  },
} satisfies ExportedHandler<Env>;
