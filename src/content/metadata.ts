import { isObject } from '../http/merge-patch';
import { Problem } from '../http/problem';

const maxKeys = 64;
const maxBytes = 8 * 1024;

/** A site's metadata (docs/design.md, "Files and info": an object of string values, at most 64 keys and 8 KiB). */
export type SiteMetadata = Record<string, string>;

export function checkMetadata(value: unknown): SiteMetadata {
  if (!isObject(value)) {
    throw new Problem('invalid-request', 'metadata must be an object of strings.', {
      errors: [{ pointer: '/metadata', message: 'must be an object' }],
    });
  }
  const errors = Object.entries(value)
    .filter(([, field]) => typeof field !== 'string')
    .map(([name]) => ({ pointer: `/metadata/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`, message: 'must be a string' }));
  if (errors.length > 0) throw new Problem('invalid-request', 'metadata values must be strings.', { errors });
  if (Object.keys(value).length > maxKeys) {
    throw new Problem('payload-too-large', `metadata may have at most ${maxKeys} keys.`, {
      extensions: { limit: 'MAX_METADATA_KEYS', value: maxKeys },
    });
  }
  if (new TextEncoder().encode(JSON.stringify(value)).byteLength > maxBytes) {
    throw new Problem('payload-too-large', `metadata may be at most ${maxBytes} bytes as JSON.`, {
      extensions: { limit: 'MAX_METADATA_BYTES', value: maxBytes },
    });
  }
  return value as SiteMetadata;
}
