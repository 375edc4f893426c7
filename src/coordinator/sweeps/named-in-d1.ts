/**
 * The objects D1 names under a site, whatever its coordinator records: the live deployment's index
 * and packs (the site row), and each deployment the directory of preview hosts names (its index,
 * and the packs that index lists). They differ from the coordinator's records only after D1 was
 * restored to an earlier minute or a coordinator's storage was lost, and then they are what the
 * site serves: the orphan sweep and an unpublish's deletion (./orphans.ts) never delete them.
 */
import type { Env } from '../../platform/env';
import { decodeFileIndex, keys } from '../../storage/file-index';
import { getSite } from '../../storage/sites-table';

/** What D1 names under `domain`: its live deployment's objects, and those of the deployments `hosted` (the directory's rows) that `recorded` (ids the coordinator keeps) lacks. */
export async function namedInD1(env: Env, domain: string, hosted: readonly string[], recorded: ReadonlySet<string>): Promise<string[]> {
  const site = await getSite(env.DB, domain);
  const named = site?.deployment ? [site.deployment.indexKey, ...site.deployment.packs] : [];
  for (const id of hosted) {
    if (recorded.has(id)) continue;
    // A deployment of host options alone shares another's index: then there is none under its own id.
    const index = await env.FILES.get(keys.index(domain, id));
    if (index) named.push(keys.index(domain, id), ...decodeFileIndex(await index.text()).packs);
  }
  return named;
}
