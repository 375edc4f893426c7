import { env } from 'cloudflare:workers';
import { readFileIndex } from '../../src/storage/file-index';
import { getSite } from '../../src/storage/sites-table';

/** The live deployment's files and their content, read straight from R2 through its index. */
export async function liveFiles(domain: string): Promise<Record<string, string>> {
  const site = await getSite(env.DB, domain);
  if (!site?.deployment) return {};
  const index = await readFileIndex(env.FILES, site.deployment.indexKey);
  const files: Record<string, string> = {};
  for (const entry of index.files) {
    const object =
      entry.size === 0 ? null : await env.FILES.get(index.packs[entry.pack]!, { range: { offset: entry.offset, length: entry.size } });
    files[entry.path] = object ? await object.text() : '';
  }
  return files;
}

/** Every object stored under the site's prefix, sorted. */
export async function storedKeys(domain: string): Promise<string[]> {
  const listing = await env.FILES.list({ prefix: `sites/${domain}/` });
  return listing.objects.map((object) => object.key).sort();
}

/** The keys the live deployment needs: its index and packs. */
export async function liveKeys(domain: string): Promise<string[]> {
  const { deployment } = (await getSite(env.DB, domain))!;
  return [deployment!.indexKey, ...deployment!.packs].sort();
}
