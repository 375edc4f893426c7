import { Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';

/** The deprecated v1 endpoints answer 410 and point at their successor (RFC 8594 `Link`, `Deprecation`). */
export const v1 = new Hono<AppEnv>();

const gone = () => {
  throw new Problem('gone', 'The v1 API is retired: deploy with PUT /v2/sites/<domain> instead.', {
    headers: { deprecation: 'true', link: '</v2/sites/{domain}>; rel="successor-version"' },
    extensions: { successor: 'PUT /v2/sites/<domain>' },
  });
};

resource(v1, '/v1/deploy', { POST: [gone] });
resource(v1, '/v1/sites', { POST: [gone] });
