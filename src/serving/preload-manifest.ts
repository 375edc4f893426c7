import picomatch from 'picomatch/posix';
import { uriReference } from '../http/uri-reference';
import type { FileEntry } from '../storage/file-index';
import { encodePathSegment } from '../http/request-path';
import { type PathTemplate, pathTemplate } from '../rules/path-template';

type Strings = string | string[];
type Lookup = string | { uri?: Strings; glob?: Strings; priority?: number };

/** One rule of an HTTP/2 server push manifest (the @commonshost/manifest format). */
export interface ManifestRule {
  get?: Lookup | Lookup[];
  uri?: Strings;
  glob?: Strings;
  push: Lookup | (Lookup | string[])[];
}

interface Selector {
  globs: ((path: string) => boolean)[];
  templates: PathTemplate[];
  /** Absolute URLs, or paths that are not templates: pushed as they are. */
  links: string[];
}

interface CompiledRule {
  get: Selector;
  push: Selector;
}

/** The site's files as the manifest sees them: URL paths relative to the root (`/js/app.js`). */
export interface ManifestFiles {
  paths: readonly string[];
  entry(path: string): FileEntry | undefined;
}

/**
 * Renders the manifest's pushes as `Link: <...>; rel=preload; as=...` headers, which
 * Cloudflare turns into 103 Early Hints now that browsers no longer accept HTTP/2 push.
 * As in @commonshost/manifest: a string is a glob unless it starts with `https://`; `get`
 * selects the file being served (`/index.html` for `/`), `push` the files to preload, and
 * the pushed files' own rules are followed too. Priorities meant HTTP/2 weights: ignored.
 */
export class PreloadManifest {
  readonly #rules: CompiledRule[];
  /** Link header by file path, per set of files: computed once for each file served. */
  readonly #links = new WeakMap<ManifestFiles, Map<string, string | undefined>>();
  /** What each rule pushes, by set of files. */
  readonly #targets = new WeakMap<ManifestFiles, string[][]>();

  constructor(rules: readonly ManifestRule[]) {
    this.#rules = rules.map((rule) => ({
      get: selector([...listOf(rule.get), ...(rule.uri ? [{ uri: rule.uri }] : []), ...(rule.glob ? [{ glob: rule.glob }] : [])]),
      push: selector(listOf(rule.push).flatMap((item) => (Array.isArray(item) ? item : [item]))),
    }));
  }

  get empty(): boolean {
    return this.#rules.length === 0;
  }

  /** The Link header for a response serving `path` (relative to the root, leading `/`), if any. */
  linkFor(files: ManifestFiles, path: string): string | undefined {
    if (this.empty) return undefined;
    let byPath = this.#links.get(files);
    if (!byPath) this.#links.set(files, (byPath = new Map()));
    if (!byPath.has(path)) byPath.set(path, this.#render(files, path));
    return byPath.get(path);
  }

  #render(files: ManifestFiles, path: string): string | undefined {
    const targets = this.#targetsOf(files);
    const pushed = new Set<string>();
    const visit = (source: string) => {
      this.#rules.forEach(({ get }, index) => {
        if (!selects(get, source)) return;
        for (const target of targets[index]!) {
          if (target === path || pushed.has(target)) continue;
          pushed.add(target);
          visit(target);
        }
      });
    };
    visit(path);
    if (pushed.size === 0) return undefined;
    return [...pushed].map((target) => preloadLink(target, files.entry(target))).join(', ');
  }

  /** What each rule pushes among these files: globbed once per set of files, not per request. */
  #targetsOf(files: ManifestFiles): string[][] {
    let targets = this.#targets.get(files);
    if (!targets) {
      targets = this.#rules.map(({ push }) => {
        // Only globs and templates need the files: links are pushed as they are.
        if (push.globs.length === 0 && push.templates.length === 0) return push.links;
        const links = new Set(push.links);
        return [...push.links, ...files.paths.filter((candidate) => !links.has(candidate) && selects(push, candidate))];
      });
      this.#targets.set(files, targets);
    }
    return targets;
  }
}

function listOf<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function selector(lookups: Lookup[]): Selector {
  const result: Selector = { globs: [], templates: [], links: [] };
  const addUri = (uri: string) => {
    if (/^https:\/\//.test(uri) || !uri.includes('{')) result.links.push(uri);
    else result.templates.push(pathTemplate(uri));
  };
  for (const lookup of lookups) {
    if (typeof lookup === 'string') {
      if (lookup.startsWith('https://')) result.links.push(lookup);
      else result.globs.push(picomatch(lookup));
      continue;
    }
    for (const uri of listOf(lookup.uri)) addUri(uri);
    for (const glob of listOf(lookup.glob)) result.globs.push(picomatch(glob));
  }
  return result;
}

function selects(selector: Selector, path: string): boolean {
  if (selector.globs.some((matches) => matches(path)) || selector.links.includes(path)) return true;
  if (selector.templates.length === 0) return false;
  const segments = path.split('/').filter(Boolean);
  return selector.templates.some((template) => template.match({ segments, directory: false, normal: true }) !== undefined);
}

/** The request destination (`as`) a preload needs to be used by the element that asks for it. */
function destinationOf(target: string, contentType: string | undefined): { as: string; crossorigin: boolean } {
  const type = contentType ?? '';
  const extension = target.slice(target.lastIndexOf('.') + 1).toLowerCase();
  if (type.includes('javascript') || ['js', 'mjs'].includes(extension)) return { as: 'script', crossorigin: false };
  if (type.startsWith('text/css') || extension === 'css') return { as: 'style', crossorigin: false };
  if (type.startsWith('font/') || ['woff', 'woff2', 'ttf', 'otf', 'eot'].includes(extension)) return { as: 'font', crossorigin: true };
  if (type.startsWith('image/') || ['png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'avif', 'ico'].includes(extension)) return { as: 'image', crossorigin: false };
  if (type.startsWith('text/vtt') || extension === 'vtt') return { as: 'track', crossorigin: false };
  if (type.startsWith('audio/')) return { as: 'audio', crossorigin: false };
  if (type.startsWith('video/')) return { as: 'video', crossorigin: false };
  // `fetch()` requests are CORS-mode: the preload must be too, or it is not reused.
  return { as: 'fetch', crossorigin: true };
}

function preloadLink(target: string, entry: FileEntry | undefined): string {
  const url = target.startsWith('/') ? target.split('/').map(encodePathSegment).join('/') : uriReference(target);
  const { as, crossorigin } = destinationOf(target, entry?.contentType);
  return `<${url}>; rel=preload; as=${as}${crossorigin ? '; crossorigin' : ''}`;
}
