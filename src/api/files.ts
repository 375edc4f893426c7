import { type Context, Hono } from 'hono';
import type { AppEnv } from '../platform/app-env';
import { requireScope, requireSiteRead } from '../auth/middleware';
import { requestClient } from '../content/label-checks';
import { checkFilePath } from '../content/paths';
import { siteCoordinator } from '../coordinator/coordinator-client';
import { purgeNotice } from './purge-notice';
import { uploadFile } from '../deploy/upload-file';
import { Problem } from '../http/problem';
import { resource } from '../http/resource';
import type { DirectoryEntry, FileEntry as ListedFile } from '../common/api-types';
import { timestamp } from '../http/time';
import { type FileEntry, readFileIndex } from '../storage/file-index';
import { domainParam } from './domain-param';
import { readableSite } from './site-access';

export const files = new Hono<AppEnv>();

type Listing = ListedFile | DirectoryEntry;

function fileListing(entry: FileEntry): ListedFile {
  return {
    name: entry.path.slice(entry.path.lastIndexOf('/') + 1),
    path: `/${entry.path}`,
    type: 'file',
    size: entry.size,
    contentType: entry.contentType,
    etag: `"${entry.hash}"`,
    modified: timestamp(entry.modified),
  };
}

/** The direct children of `directory` ('' for the root), or with `recursive` every file below it. */
function listDirectory(entries: readonly FileEntry[], directory: string, recursive: boolean): Listing[] | undefined {
  const prefix = directory ? `${directory}/` : '';
  const below = entries.filter((entry) => entry.path.startsWith(prefix));
  if (directory && below.length === 0) return undefined;
  if (recursive) return below.map(fileListing);
  const listing: Listing[] = [];
  const directories = new Set<string>();
  for (const entry of below) {
    const rest = entry.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) {
      listing.push(fileListing(entry));
    } else if (!directories.has(rest.slice(0, slash))) {
      const name = rest.slice(0, slash);
      directories.add(name);
      listing.push({ name, path: `/${prefix}${name}/`, type: 'directory' });
    }
  }
  return listing.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The part of the URL after `/files/`, percent-decoded, and whether it names a directory (trailing slash). */
function filePathParam(c: Context<AppEnv>): { path: string; isDirectory: boolean } {
  const raw = new URL(c.req.url).pathname.replace(/^\/v2\/sites\/[^/]+\/files\/?/, '');
  let decoded: string;
  try {
    decoded = raw.split('/').map(decodeURIComponent).join('/');
  } catch {
    throw new Problem('invalid-path', `The path ${JSON.stringify(raw)} is not validly percent-encoded.`);
  }
  const isDirectory = decoded === '' || decoded.endsWith('/');
  const trimmed = isDirectory ? decoded.slice(0, -1) : decoded;
  return { path: trimmed === '' ? '' : checkFilePath(trimmed), isDirectory };
}

const readFiles = [
  requireSiteRead(),
  async (c: Context<AppEnv>) => {
    const domain = domainParam(c);
    const { path, isDirectory } = filePathParam(c);
    const site = await readableSite(c, domain);
    const entries = site.deployment ? (await readFileIndex(c.env.FILES, site.deployment.indexKey)).files : [];
    if (!isDirectory) {
      const entry = entries.find((file) => file.path === path);
      if (entry) return c.json(fileListing(entry));
    }
    const listing = listDirectory(entries, path, ['1', 'true'].includes(c.req.query('recursive') ?? ''));
    if (!listing) throw new Problem('not-found', `There is no file or directory ${JSON.stringify(`/${path}`)} on ${domain}.`);
    return c.json(listing);
  },
] as const;

/** The domain and file a PUT or DELETE names: a file, never a directory. */
function changedFile(c: Context<AppEnv>): { domain: string; filePath: string } {
  const domain = domainParam(c);
  const { path, isDirectory } = filePathParam(c);
  if (isDirectory) {
    throw new Problem('invalid-path', `${c.req.method} a file, not a directory: the path must not end with "/".`);
  }
  return { domain, filePath: path };
}

for (const path of ['/v2/sites/:domain/files', '/v2/sites/:domain/files/*']) {
  resource(files, path, {
    GET: [...readFiles],
    PUT: [
      requireScope('deploy'),
      async (c) => {
        const { domain, filePath } = changedFile(c);
        const { created, entry } = await uploadFile(c.env, c.req.raw, domain, filePath, c.get('principal').userId, purgeNotice(c));
        return c.json(fileListing(entry), created ? 201 : 200, created ? { location: new URL(c.req.url).pathname } : {});
      },
    ],
    DELETE: [
      requireScope('deploy'),
      async (c) => {
        const { domain, filePath } = changedFile(c);
        await siteCoordinator(c.env, domain, purgeNotice(c)).deleteFile(domain, c.get('principal').userId, filePath, requestClient(c.req.raw));
        return c.body(null, 200);
      },
    ],
  });
}
