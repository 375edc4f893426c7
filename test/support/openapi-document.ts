import document from '../../schema/openapi.json';

/**
 * schema/openapi.json as the tests read it: which documented operation a request falls under, and
 * whether the status it was answered is listed. Shared by test/api/openapi.test.ts and the checks
 * of every answer the tests see (test/support/documented-answers.ts, test/node/support/service.ts).
 */

export type Method = 'get' | 'put' | 'patch' | 'post' | 'delete';
export const methods: Method[] = ['get', 'put', 'patch', 'post', 'delete'];

export interface Reference {
  $ref?: string;
}
interface HeaderObject extends Reference {
  required?: boolean;
}
export interface ResponseObject extends Reference {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: unknown }>;
}
interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, ResponseObject>;
}
type PathItem = Partial<Record<Method, Operation>>;

export const openapi = document as unknown as { paths: Record<string, PathItem> };

const literalLength = (template: string) => template.replace(/\{[^}]+\}/g, '').length;
/** `{file}` and `{directory}` are paths sent with their slashes (see their descriptions); other parameters are one segment. */
const multiSegment = new Set(['{file}', '{directory}']);

/** The documented path templates a request path matches, the most specific first. */
export function templatesMatching(pathname: string): string[] {
  return Object.keys(openapi.paths)
    .filter((template) => {
      const pattern = template
        .split(/(\{[^}]+\})/)
        .map((part) => (multiSegment.has(part) ? '.+' : part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      return new RegExp(`^${pattern.join('')}$`).test(pathname);
    })
    .sort((a, b) => literalLength(b) - literalLength(a));
}

/** The documented path template a request falls under: the most specific one with the method, else the most specific. */
export function templateOf(method: Method, pathname: string): string | undefined {
  const matching = templatesMatching(pathname);
  return matching.find((template) => openapi.paths[template]![method]) ?? matching[0];
}

/**
 * For an answer to a documented operation whose status the document does not list, what to add
 * (`PUT /v2/sites/{domain} → 409`); undefined for a listed status, or for a request the document
 * has no operation for (another method answers the documented 405; other paths are not the API's).
 */
export function undocumentedAnswer(method: string, pathname: string, status: number): string | undefined {
  const lower = method.toLowerCase() as Method;
  if (!methods.includes(lower)) return undefined;
  const template = templateOf(lower, pathname);
  const operation = template === undefined ? undefined : openapi.paths[template]![lower];
  if (!operation || String(status) in operation.responses) return undefined;
  return `${method.toUpperCase()} ${template} → ${status}`;
}
