import { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { notImplemented, resource } from '../http/resource';

export const info = new Hono<AppEnv>();

resource(info, '/v2/sites/:domain/info', {
  GET: [notImplemented('GET /v2/sites/<domain>/info')],
  PUT: [notImplemented('PUT /v2/sites/<domain>/info')],
  PATCH: [notImplemented('PATCH /v2/sites/<domain>/info')],
});
