import mime from 'mime';

const textual = /^(text\/.+|application\/(javascript|ecmascript|json|xml|manifest\+json|[\w.+-]+\+(json|xml))|image\/svg\+xml)$/;

/**
 * The Content-Type a file is served with: from its extension (the `mime` database), else
 * the type its upload declared, else `application/octet-stream`. Text gets `charset=utf-8`.
 */
export function contentTypeOf(path: string, declared?: string): string {
  const type = mime.getType(path) ?? (declared && declared !== 'application/octet-stream' ? declared : undefined);
  if (!type) return 'application/octet-stream';
  return textual.test(type) && !/;\s*charset=/i.test(type) ? `${type}; charset=utf-8` : type;
}
