import { configurationLimits } from '../rules/configuration-limits';
import { maxJsonBytes } from '../http/json-body';
import { log } from '../platform/log';
import type { HostOptions } from './host-options';
import { type ManifestFiles, PreloadManifest } from './preload-manifest';
import { joinSitePath } from '../http/request-path';
import { type FileStores, type SiteFiles, readFile } from './site-files';

const views = new WeakMap<SiteFiles, Map<string, ManifestFiles>>();
const fromFiles = new WeakMap<SiteFiles, WeakMap<HostOptions, Promise<PreloadManifest>>>();

/** The deployment's files under `root`, as URL paths: what manifest globs are matched against. */
export function manifestFilesOf(files: SiteFiles, root: string): ManifestFiles {
  let byRoot = views.get(files);
  if (!byRoot) views.set(files, (byRoot = new Map()));
  let view = byRoot.get(root);
  if (!view) {
    const prefix = root === '' ? '' : `${root}/`;
    const paths = [...files.byPath.keys()].filter((path) => path.startsWith(prefix)).map((path) => `/${path.slice(prefix.length)}`);
    view = { paths, entry: (path) => files.byPath.get(joinSitePath(root, path.slice(1))) };
    byRoot.set(root, view);
  }
  return view;
}

/**
 * The host's push manifest. One given as a file path is read from the deployment once per
 * deployment and configuration; a missing or unreadable file means no manifest.
 */
export function manifestOf(stores: FileStores, files: SiteFiles, host: HostOptions): PreloadManifest | Promise<PreloadManifest> {
  const path = host.manifestFile;
  if (path === undefined) return host.manifest;
  let byHost = fromFiles.get(files);
  if (!byHost) fromFiles.set(files, (byHost = new WeakMap()));
  let manifest = byHost.get(host);
  if (!manifest) {
    manifest = readManifest(stores, files, joinSitePath(host.root, path));
    byHost.set(host, manifest);
  }
  return manifest;
}

/**
 * A manifest file is bounded like a configuration's: one over the limits is not used (the
 * page is served without its Link header, which only ever speeds it up) and is logged.
 */
async function readManifest(stores: FileStores, files: SiteFiles, path: string): Promise<PreloadManifest> {
  const entry = files.byPath.get(path);
  if (!entry || entry.size === 0) return new PreloadManifest([]);
  if (entry.size > maxJsonBytes) {
    log.warn('Manifest file ignored: larger than MAX_JSON_BYTES', { path, size: entry.size, limit: maxJsonBytes });
    return new PreloadManifest([]);
  }
  try {
    const rules: unknown = JSON.parse(await new Response(await readFile(stores, files, entry)).text());
    if (!Array.isArray(rules)) return new PreloadManifest([]);
    if (rules.length > configurationLimits.MAX_MANIFEST_RULES) {
      log.warn('Manifest file ignored: over MAX_MANIFEST_RULES', { path, rules: rules.length, limit: configurationLimits.MAX_MANIFEST_RULES });
      return new PreloadManifest([]);
    }
    return new PreloadManifest(rules);
  } catch {
    return new PreloadManifest([]);
  }
}
