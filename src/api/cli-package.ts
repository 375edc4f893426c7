import { Hono } from 'hono';
import { packedCli } from '../../build/cli-package';
import type { AppEnv } from '../platform/app-env';
import { ifNoneMatchMatches } from '../http/conditional';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';

/**
 * The `sitehost` CLI of this very service, so that `npm install --global <api origin>/cli/sitehost-cli.tgz`
 * works against any deployment with nothing published (docs/cli.md, "Installing"). The versioned
 * name never changes its bytes: cached for a year, immutable. The plain name follows the service's
 * version: a redirect to it, revalidated each time, so an upgraded service hands out its new CLI at once.
 */
export const cliPackage = new Hono<AppEnv>();

export const latestCliPath = '/cli/sitehost-cli.tgz';
export const versionedCliPath = `/cli/${packedCli.filename}`;

let tarball: Uint8Array<ArrayBuffer> | undefined;
/** Decoded once per isolate, on the first download. */
function tarballBytes(): Uint8Array<ArrayBuffer> {
  tarball ??= Uint8Array.from(atob(packedCli.base64), (character) => character.charCodeAt(0));
  return tarball;
}

resource(cliPackage, latestCliPath, {
  GET: [(c) => c.body(null, 302, { location: versionedCliPath, 'cache-control': 'no-cache' })],
});

resource(cliPackage, '/cli/:tarball', {
  GET: [
    (c) => {
      if (c.req.param('tarball') !== packedCli.filename) {
        throw new Problem('not-found', `This service hands out sitehost-cli ${packedCli.version} only, at ${latestCliPath} (${versionedCliPath}).`);
      }
      const headers = { etag: packedCli.etag, 'cache-control': 'public, max-age=31536000, immutable' };
      const ifNoneMatch = c.req.header('if-none-match');
      if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, packedCli.etag)) return c.body(null, 304, headers);
      return c.body(tarballBytes(), 200, { ...headers, 'content-type': 'application/gzip', 'content-disposition': `attachment; filename="${packedCli.filename}"` });
    },
  ],
});
