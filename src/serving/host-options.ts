import type { HostConfiguration } from '../configuration/parse';
import { type PathTemplate, type TemplateValues, fieldValueTemplate, pathTemplate } from '../rules/path-template';
import { fieldNameFault, mergedFields } from '../rules/header-fields';
import { PathRules } from '../rules/path-rules';
import { type ManifestRule, PreloadManifest } from './preload-manifest';
import { normaliseSitePath } from '../http/request-path';

/** The host options as `schema/host.schema.json` describes them (already validated on deploy). */
interface HostFields {
  root?: string;
  fallback?: string | ({ extensions?: string[] } & Record<string, string | string[] | undefined>);
  directories?: { resolve?: boolean; trailingSlash?: 'always' | 'never' };
  accessControl?: { allowOrigin?: string };
  headers?: { uri?: string; fields: Record<string, string | string[]> }[];
  redirects?: { from: string; to: string; status?: number }[];
  manifest?: ManifestRule[] | string;
}

export interface HeaderRule {
  /** Each value expanded with the variables its rule's `uri` read from the request path. */
  fields: [name: string, values: ((values: TemplateValues) => string)[]][];
}

export interface RedirectRule {
  to: PathTemplate;
  status: number;
}

export interface FallbackFile {
  status: number;
  /** Relative to the root. */
  path: string;
}

/** Host options with their defaults applied and their templates compiled, ready for every request. */
export interface HostOptions {
  /** Folder of the deployed files served as the site root; '' for all of them. */
  root: string;
  /** Extensions tried, in order, after the path itself, with their dot (`.html`). */
  extensions: string[];
  /** Tried in order; the first that exists is served with its status. After those configured (by status), the root's 404.html, unless one names a 404 page. */
  fallbacks: FallbackFile[];
  /**
   * `directories.resolve`: a path sent with dot segments or `//` is redirected to its normal
   * form. Off, it is served where it resolves to. Trailing-slash redirects apply either way.
   */
  normaliseDirectoryPaths: boolean;
  trailingSlash: 'always' | 'never';
  allowOrigin: string;
  /** Header rules, all of those that match applied in order. */
  headers: PathRules<HeaderRule>;
  /** Redirect rules, the first that matches applied. */
  redirects: PathRules<RedirectRule>;
  manifest: PreloadManifest;
  /** A manifest given as the path of a deployed file (relative to the root): read when first needed. */
  manifestFile?: string;
}

/** URLs that run code where they are opened: refused as redirect targets (the schema refuses them in `to`). */
const scriptUrl = /^[\u0000-\u0020]*(?:javascript|data|vbscript):/i;

export function isScriptUrl(location: string): boolean {
  return scriptUrl.test(location);
}

const defaultExtensions = ['', 'html'];

/**
 * A root `404.html` answers misses with 404 unless a fallback names another 404 page, as on
 * Netlify, Cloudflare Pages, GitHub Pages and Firebase: a site brought from them needs no option.
 */
const defaultNotFoundPage: FallbackFile = { status: 404, path: '404.html' };

function compileHostOptions(configuration: HostConfiguration): HostOptions {
  const host = configuration as HostFields;
  const fallback = typeof host.fallback === 'string' ? { 200: host.fallback } : (host.fallback ?? {});
  const fallbacks: FallbackFile[] = Object.entries(fallback)
    .filter((entry): entry is [string, string] => /^\d{3}$/.test(entry[0]) && typeof entry[1] === 'string')
    .map(([status, path]) => ({ status: Number(status), path: normaliseSitePath(path) }))
    .sort((a, b) => a.status - b.status);
  if (!fallbacks.some(({ status }) => status === 404)) fallbacks.push(defaultNotFoundPage);
  const extensions = (typeof host.fallback === 'object' ? host.fallback.extensions : undefined) ?? defaultExtensions;
  return {
    root: normaliseSitePath(host.root ?? ''),
    // The path itself is always tried first: a static host never hides a file that exists.
    extensions: extensions.filter((extension) => extension !== '').map((extension) => `.${extension.replace(/^\./, '')}`),
    fallbacks,
    normaliseDirectoryPaths: host.directories?.resolve ?? true,
    trailingSlash: host.directories?.trailingSlash ?? 'always',
    allowOrigin: host.accessControl?.allowOrigin ?? '*',
    headers: new PathRules((host.headers ?? []).map(compileHeaderRule)),
    redirects: new PathRules(
      (host.redirects ?? []).map(({ from, to, status }) => ({
        template: pathTemplate(from),
        rule: { to: pathTemplate(to), status: status ?? 308 },
      })),
    ),
    manifest: new PreloadManifest(Array.isArray(host.manifest) ? host.manifest : []),
    manifestFile: typeof host.manifest === 'string' ? normaliseSitePath(host.manifest) : undefined,
  };
}

function compileHeaderRule({ uri, fields }: NonNullable<HostFields['headers']>[number]) {
  const template = uri === undefined ? undefined : pathTemplate(uri);
  const variables = template?.variables ?? [];
  const rule: HeaderRule = {
    // The schema refuses the names only the server sets; a configuration stored before it did is still not obeyed there.
    fields: mergedFields(Object.entries(fields).map(([name, value]) => [name, Array.isArray(value) ? value : [value]] as const))
      .filter(([name]) => fieldNameFault(name) === undefined)
      .map(([name, values]) => [name, values.map((text) => fieldValueTemplate(text, variables))]),
  };
  return { template, rule };
}

/** By the configuration object of a site's kept live record, which is replaced whenever the record changes. */
const compiled = new WeakMap<HostConfiguration, HostOptions>();

/** The site's compiled host options, compiled again only when its live record changes. */
export function hostOptionsOf(configuration: HostConfiguration): HostOptions {
  let options = compiled.get(configuration);
  if (!options) {
    options = compileHostOptions(configuration);
    compiled.set(configuration, options);
  }
  return options;
}
