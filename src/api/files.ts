import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { notImplemented, resource } from '../http/resource';

export const files = new Hono<AppEnv>();

resource(files, '/v2/sites/:domain/files/*', {
  GET: [notImplemented('GET /v2/sites/<domain>/files/<directory>/')],
  PUT: [notImplemented('PUT /v2/sites/<domain>/files/<file>')],
  DELETE: [notImplemented('DELETE /v2/sites/<domain>/files/<file>')],
});
