import { BodyTooLarge, readAtMost } from './bounded-read';
import { exceedsMaxJsonDepth, jsonTooDeep } from './json-depth';
import { Problem } from './problem';

/** Larger JSON documents are refused: host options and metadata are a few kilobytes. */
export const maxJsonBytes = 1024 * 1024;

/** 413 for a JSON document (a body, or a deploy's configuration field) over `maxJsonBytes`. */
export function jsonTooLarge(what: string): Problem {
  return new Problem('payload-too-large', `${what} is larger than ${maxJsonBytes} bytes.`, {
    extensions: { limit: 'MAX_JSON_BYTES', value: maxJsonBytes },
  });
}

/** How large a body may be and the 413 past it; and what else the endpoint takes. */
export interface JsonBodyOptions {
  maxBytes: number;
  tooLarge: () => Problem;
  /** Another media type the endpoint takes (read by its caller), named in the 415. */
  orAlso?: string;
}

const documentOptions: JsonBodyOptions = { maxBytes: maxJsonBytes, tooLarge: () => jsonTooLarge('The body') };

/**
 * Reads a JSON request body of the given media type: 415 for another type, 413 past `options.maxBytes`
 * (1 MiB unless told; counted while reading), 400 when it is not JSON or nests too deep.
 */
export async function readJsonBody(request: Request, mediaType: string, options = documentOptions): Promise<unknown> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== mediaType) {
    throw new Problem('unsupported-media-type', `Send this as ${mediaType}${options.orAlso ? ` or ${options.orAlso}` : ''}${type ? `, not ${type}` : ''}.`, {
      headers: request.method === 'PATCH' ? { 'accept-patch': mediaType } : {},
    });
  }
  let bytes: Uint8Array;
  try {
    bytes = await readAtMost(request.body, options.maxBytes);
  } catch (error) {
    throw error instanceof BodyTooLarge ? options.tooLarge() : error;
  }
  return parseJsonText(new TextDecoder().decode(bytes), 'The body');
}

/** Parses `text`, which `what` names in the 400 when it is not JSON or nests too deep. */
export function parseJsonText(text: string, what: string): unknown {
  if (exceedsMaxJsonDepth(text)) throw jsonTooDeep('invalid-request', what);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Problem('invalid-request', `${what} is not valid JSON: ${(error as Error).message}`);
  }
}
