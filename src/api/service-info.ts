import { Hono } from 'hono';
import type { ServiceInfo } from '../common/api-types';
import type { AppEnv } from '../platform/app-env';
import { resource } from '../http/resource';
import { packedCli } from '../../build/cli-package';
import { versionedCliPath } from './cli-package';

/** The service's version, as every answer of the API host names it (`Sitehost-Version`) and `GET /v2/info` says. */
export const serviceVersion = packedCli.version;

export const serviceInfo = new Hono<AppEnv>();

/** `GET /v2/info`: the service's version and the CLI it hands out; no token needed. `sitehost --version` asks it. */
resource(serviceInfo, '/v2/info', {
  GET: [
    (c) => {
      const body: ServiceInfo = {
        version: serviceVersion,
        cli: { version: packedCli.version, url: new URL(versionedCliPath, c.req.url).href, integrity: packedCli.integrity },
      };
      return c.json(body, 200, { 'cache-control': 'no-cache' });
    },
  ],
});
