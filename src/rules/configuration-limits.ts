import { Problem } from '../http/problem';
import { headerRulesBytes, locationBytes } from './header-bytes';
import { expressionsOf, isTemplated, parseTemplate } from './template-parts';
import type { HostConfiguration } from '../configuration/parse';

/**
 * Bounds on the rules of a host configuration, far above what a real site writes. Rules
 * with a plain path are looked up by exact key when serving, so thousands cost nothing per
 * request; templated rules are tried one by one, so they are fewer (Cloudflare Pages allows
 * 2,000 static and 100 dynamic redirects, and 100 header rules).
 */
export const configurationLimits = {
  MAX_REDIRECT_RULES: 10_000,
  MAX_TEMPLATED_REDIRECT_RULES: 200,
  MAX_HEADER_RULES: 1_000,
  MAX_TEMPLATED_HEADER_RULES: 200,
  /** Each manifest rule's globs are matched against every file of the deployment. */
  MAX_MANIFEST_RULES: 100,
  /** Characters in one URI template or manifest glob: the cost of matching it grows with it. */
  MAX_TEMPLATE_LENGTH: 2_048,
  /**
   * Variables in one template matched against request paths (`redirects[].from`,
   * `headers[].uri`): a match costs a step for each, besides reading the path.
   */
  MAX_TEMPLATE_VARIABLES: 16,
  /**
   * Bytes the rules can add to one response at most: header fields, or a redirect's
   * `Location`, with every variable expanded at its longest (src/rules/header-bytes.ts).
   * Cloudflare allows 128 KB of response headers; more would fail every answer of the site.
   */
  MAX_HEADER_BYTES: 32_768,
} as const;

export type ConfigurationLimit = keyof typeof configurationLimits;

/** 413 naming the limit a configuration goes over, pointing at where. */
function overLimit(limit: ConfigurationLimit, detail: string, pointer: string): Problem {
  return new Problem('payload-too-large', detail, {
    extensions: { limit, value: configurationLimits[limit] },
    errors: [{ pointer, message: `over ${limit} (${configurationLimits[limit]})` }],
  });
}

/** A string of the configuration, and its JSON Pointer. */
interface Located {
  pointer: string;
  text: string;
}

interface RuleFields {
  headers?: { uri?: string; fields: Record<string, string | string[]> }[];
  redirects?: { from: string; to: string }[];
  manifest?: unknown;
}

/** Checks a configuration that complies with the host schema against `configurationLimits`. */
export function checkConfigurationLimits(configuration: HostConfiguration): void {
  const { headers = [], redirects = [], manifest } = configuration as RuleFields;
  checkCount('MAX_REDIRECT_RULES', redirects.length, 'redirect rules', '/redirects');
  checkCount('MAX_TEMPLATED_REDIRECT_RULES', redirects.filter(({ from }) => isTemplated(from)).length, 'redirect rules with variables in from', '/redirects');
  checkCount('MAX_HEADER_RULES', headers.length, 'header rules', '/headers');
  checkCount('MAX_TEMPLATED_HEADER_RULES', headers.filter(({ uri }) => uri !== undefined && isTemplated(uri)).length, 'header rules with variables in uri', '/headers');
  if (Array.isArray(manifest)) checkCount('MAX_MANIFEST_RULES', manifest.length, 'manifest rules', '/manifest');

  const templates: Located[] = [
    ...headers.flatMap(({ uri }, index) => (uri === undefined ? [] : [{ pointer: `/headers/${index}/uri`, text: uri }])),
    ...redirects.flatMap(({ from, to }, index) => [
      { pointer: `/redirects/${index}/from`, text: from },
      { pointer: `/redirects/${index}/to`, text: to },
    ]),
    ...(Array.isArray(manifest) ? stringsIn(manifest, '/manifest') : []),
  ];
  const long = templates.find(({ text }) => text.length > configurationLimits.MAX_TEMPLATE_LENGTH);
  if (long) {
    throw overLimit('MAX_TEMPLATE_LENGTH', `A URI template or glob is ${long.text.length} characters long.`, long.pointer);
  }
  checkMatchedTemplates(headers, redirects);
  checkHeaderBytes(headers, redirects);
}

/** The templates read from request paths: their variables are counted. */
function checkMatchedTemplates(headers: NonNullable<RuleFields['headers']>, redirects: NonNullable<RuleFields['redirects']>): void {
  const matched: Located[] = [
    ...headers.flatMap(({ uri }, index) => (uri === undefined ? [] : [{ pointer: `/headers/${index}/uri`, text: uri }])),
    ...redirects.map(({ from }, index) => ({ pointer: `/redirects/${index}/from`, text: from })),
  ];
  const limit = configurationLimits.MAX_TEMPLATE_VARIABLES;
  for (const { pointer, text } of matched) {
    if (!isTemplated(text)) continue;
    const variables = expressionsOf(parseTemplate(text)).reduce((count, { variables }) => count + variables.length, 0);
    if (variables > limit) throw overLimit('MAX_TEMPLATE_VARIABLES', `A URI template matched against request paths has ${variables} variables; at most ${limit} are allowed.`, pointer);
  }
}

function checkHeaderBytes(headers: NonNullable<RuleFields['headers']>, redirects: NonNullable<RuleFields['redirects']>): void {
  const limit = configurationLimits.MAX_HEADER_BYTES;
  const bytes = headerRulesBytes(headers);
  if (bytes > limit) throw overLimit('MAX_HEADER_BYTES', `The header rules can add up to ${bytes} bytes to one response, each variable expanded at its longest; at most ${limit} are allowed.`, '/headers');
  redirects.forEach(({ from, to }, index) => {
    const location = locationBytes(from, to);
    if (location > limit) throw overLimit('MAX_HEADER_BYTES', `This redirect's Location can take up to ${location} bytes, each variable expanded at its longest; at most ${limit} are allowed.`, `/redirects/${index}/to`);
  });
}

function checkCount(limit: ConfigurationLimit, count: number, what: string, pointer: string): void {
  if (count > configurationLimits[limit]) {
    throw overLimit(limit, `The configuration has ${count} ${what}; at most ${configurationLimits[limit]} are allowed.`, pointer);
  }
}

/** Every string in a manifest (its URIs and globs), with its pointer. */
function stringsIn(value: unknown, pointer: string): Located[] {
  if (typeof value === 'string') return [{ pointer, text: value }];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => stringsIn(item, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`));
}
