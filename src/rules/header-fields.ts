/**
 * The one rule for the header fields a site sets, by `_headers` or by its host options'
 * `headers`: which names it may set and which values can be sent. schema/host.schema.json
 * states the same as patterns; test/rules/header-fields.unit.test.ts holds them to this list.
 */

/**
 * Set by the server alone, in any letter case: the framing of a response and its content
 * coding (the runtime would encode the body to match, and HEAD and GET would disagree on its
 * length), and the hop-by-hop and connection-level fields.
 */
export const serverFields: readonly string[] = [
  'content-length',
  'content-range',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'proxy-authenticate',
  'proxy-authorization',
  'host',
  'http2-settings',
];

/** Netlify reads it as password protection: a `_headers` file's is read as such (./headers-file.ts); host options may not set it, since they are shown whole. */
const passwordField = 'basic-auth';

/** Every name a site may not set. */
export const refusedFieldNames: readonly string[] = [...serverFields, passwordField];

/** RFC 9110 §5.6.2: a field name is a token. */
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Why a site may not set a field of this name; undefined when it may. */
export function fieldNameFault(name: string): string | undefined {
  if (!token.test(name)) return `"${name}" is not a header name.`;
  const lower = name.toLowerCase();
  if (lower === passwordField) return 'Basic-Auth (password protection) is read from a _headers file only: host options are shown whole, and would show its passwords.';
  if (serverFields.includes(lower)) return `"${name}" is set by the server alone.`;
  return undefined;
}

/**
 * Tabs, spaces and visible ASCII: the runtime sends any other character as raw UTF-8, which
 * clients read as Latin-1 or refuse. (Values a placeholder fills are percent-encoded.)
 */
export const fieldValueCharacters = /^[\t\x20-\x7e]*$/;

/** Why a value cannot be sent; undefined when it can. */
export function fieldValueFault(name: string, value: string): string | undefined {
  if (fieldValueCharacters.test(value)) return undefined;
  return `the value of "${name}" holds a character other than visible ASCII, a space or a tab; percent-encode it, as URLs are.`;
}

/**
 * Fields by name in any letter case, in the order first written: `Cache-Control: a` and
 * `cache-control: b` are one field, `a, b`, as Cloudflare's and Netlify's parsers read them.
 */
export function mergedFields<V>(fields: Iterable<readonly [string, readonly V[]]>): [string, V[]][] {
  const byName = new Map<string, [string, V[]]>();
  for (const [name, values] of fields) {
    const merged = byName.get(name.toLowerCase());
    if (merged) merged[1].push(...values);
    else byName.set(name.toLowerCase(), [name, [...values]]);
  }
  return [...byName.values()];
}

/** `Vary` of the site's fields beside the server's own (`Accept-Encoding` on a compressed answer), each name once. */
export function mergedVary(...lists: (string | null)[]): string {
  const names = new Map<string, string>();
  for (const list of lists) {
    for (const name of (list ?? '').split(',')) {
      const trimmed = name.trim();
      if (trimmed !== '' && !names.has(trimmed.toLowerCase())) names.set(trimmed.toLowerCase(), trimmed);
    }
  }
  return [...names.values()].join(', ');
}
