import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { dashboard } from '../dashboard';
import { Problem } from '../http/problem';
import { log } from '../platform/log';
import { analytics } from './analytics';
import { certificate } from './certificate';
import { cliPackage } from './cli-package';
import { configurations } from './configurations';
import { deploymentRules } from './deployment-rules';
import { deployments } from './deployments';
import { domains } from './domains';
import { events } from './events';
import { files } from './files';
import { info } from './info';
import { openapi } from './openapi';
import { operators } from './operators';
import { rateLimit } from './rate-limit';
import { serviceInfo, serviceVersion } from './service-info';
import { versionHeader } from '../common/service-version';
import { sites } from './sites';
import { members } from './members';
import { oidc } from './oidc';
import { tokens } from './tokens';
import { trust } from './trust';
import { protection } from './protection';
import { usage } from './usage';
import { userSuspensions } from './user-suspensions';
import { v1 } from './v1';
import { whoami } from './whoami';

/** The API face of the Worker: every route, problems for every error. */
export const api = new Hono<AppEnv>();

// Every answer names the service's version: a client older than the service learns it from any request (cli/version-check.ts).
api.use(async (c, next) => {
  await next();
  // Hono copies an answer whose headers are immutable (one a Durable Object made); a WebSocket's 101 is answered as it is.
  if (c.res.status !== 101) c.header(versionHeader, serviceVersion);
});
api.use(rateLimit);
api.route('/', sites);
api.route('/', deployments);
api.route('/', deploymentRules);
api.route('/', configurations);
api.route('/', events);
api.route('/', files);
api.route('/', info);
api.route('/', operators);
api.route('/', userSuspensions);
api.route('/', certificate);
api.route('/', domains);
api.route('/', usage);
api.route('/', openapi);
api.route('/', whoami);
api.route('/', tokens);
api.route('/', members);
api.route('/', analytics);
api.route('/', trust);
api.route('/', protection);
api.route('/', oidc);
api.route('/', v1);
api.route('/', serviceInfo);
api.route('/', cliPackage);
api.route('/', dashboard);

api.notFound((c) => {
  throw new Problem('not-found', `There is nothing at ${new URL(c.req.url).pathname}.`);
});

api.onError((error, c) => {
  discardUnreadBody(c.req.raw);
  if (error instanceof Problem) return error.toResponse();
  log.error('Unhandled error', { method: c.req.method, path: new URL(c.req.url).pathname, error });
  return new Problem('internal', 'Something went wrong on our side; the error was logged.').toResponse();
});

/**
 * A request refused before its body was read (a bad token, domain or Content-Length) is answered
 * at once, while the client still sends: the body is cancelled, telling the runtime it will not be
 * read (wrangler dev would otherwise read it to the end before answering).
 */
function discardUnreadBody(request: Request): void {
  if (request.body && !request.bodyUsed && !request.body.locked) request.body.cancel().catch(() => {});
}
