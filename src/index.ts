import { api } from './api';
import { apiHostnames } from './domain-name';
import type { Env } from './env';
import { consumeQueue } from './queues';
import { serveSite } from './sites/serve';

export { SiteCoordinator } from './deploy/site-coordinator';

/** `example.com.localhost` serves `example.com` locally: browsers resolve `*.localhost` to loopback. */
function siteDomainOf(hostname: string): string {
  return hostname.endsWith('.localhost') ? hostname.slice(0, -'.localhost'.length) : hostname;
}

export default {
  fetch(request, env, ctx) {
    const hostname = new URL(request.url).hostname.toLowerCase();
    if (apiHostnames(env.API_HOSTNAMES).includes(hostname)) return api.fetch(request, env, ctx);
    return serveSite(request, siteDomainOf(hostname));
  },
  queue: consumeQueue,
} satisfies ExportedHandler<Env>;
