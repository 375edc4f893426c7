import { Hono } from 'hono';
import document from '../../schema/openapi.json';
import type { AppEnv } from '../platform/app-env';
import { resource } from '../http/resource';

export const openapi = new Hono<AppEnv>();

resource(openapi, '/v2/openapi.json', {
  GET: [(c) => c.json(document, 200, { 'cache-control': 'public, max-age=300' })],
});
