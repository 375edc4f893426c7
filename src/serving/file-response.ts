import { ifNoneMatchMatches, wholeSecond } from '../http/conditional';
import { httpDate, parseHttpDate } from '../http/time';
import { noteBodyBytes } from './body-bytes';
import type { FileEntry } from '../storage/file-index';
import { cacheControlFor } from './cache-control';
import { acceptedCoding, isCompressedByPlatform } from './content-coding';
import { type ByteRange, type FileStores, type SiteFiles, readFile } from './site-files';

/**
 * The response serving a file: validators, caching, conditional requests (304) and byte
 * ranges (206, 416) for GET; HEAD answers what GET without a Range would. At most one read of the bytes (from the isolate, the
 * location's cache or R2), and none for HEAD, 304, 416 or an empty file. A fallback served with a status other than 200 is sent whole, without
 * conditionals.
 *
 * A type the platform would compress is compressed here, by naming the coding: every header
 * then describes the bytes sent. The whole file goes out in the client's coding, under a weak
 * ETag (its bytes are the runtime's, not the file's) and without a Content-Length (HEAD too:
 * it is known only once compressed); a range counts the file's own bytes, so it goes out
 * marked `identity`, which the platform leaves alone.
 */
export async function fileResponse(
  request: Request,
  stores: FileStores,
  files: SiteFiles,
  entry: FileEntry,
  status: number,
): Promise<Response> {
  const fields = fileFieldsOf(entry);
  const headers = new Headers(fields);
  const compressible = isCompressedByPlatform(entry.contentType);
  const coding = compressible && entry.size > 0 ? acceptedCoding(request) : undefined;
  if (compressible) headers.set('vary', 'Accept-Encoding');

  if (status === 200) {
    if (isNotModified(request.headers, fields.etag, entry.modified)) {
      headers.delete('content-type');
      if (coding) headers.set('etag', weak(fields.etag));
      return new Response(null, { status: 304, headers });
    }
    // RFC 9110 §14.2: only GET has range handling; HEAD ignores Range and answers what a whole GET would.
    const range = request.method === 'GET' ? requestedRange(request.headers, fields.etag, entry) : undefined;
    if (range && coding) headers.set('content-encoding', 'identity');
    if (range === 'unsatisfiable') {
      headers.set('content-range', `bytes */${entry.size}`);
      return new Response(null, { status: 416, headers });
    }
    if (range) {
      headers.set('content-range', `bytes ${range.start}-${range.end}/${entry.size}`);
      headers.set('content-length', String(range.end - range.start + 1));
      return new Response(await readFile(stores, files, entry, range), { status: 206, headers });
    }
  }

  if (coding) {
    headers.set('content-encoding', coding);
    headers.set('etag', weak(fields.etag));
  } else {
    headers.set('content-length', String(entry.size));
  }
  const body = request.method === 'HEAD' || entry.size === 0 ? null : await readFile(stores, files, entry);
  return noteBodyBytes(new Response(body, { status, headers }), body === null ? 0 : entry.size);
}

function weak(etag: string): string {
  return `W/${etag}`;
}

/** The fields every response serving a file carries: the same for every request, so worked out once per entry. */
interface FileFields extends Record<string, string> {
  'content-type': string;
  etag: string;
  'last-modified': string;
  'cache-control': string;
  'accept-ranges': string;
  'x-content-type-options': string;
}

/** Entries live as long as their deployment's cached index, and their fields with them. */
const fileFields = new WeakMap<FileEntry, FileFields>();

function fileFieldsOf(entry: FileEntry): FileFields {
  let fields = fileFields.get(entry);
  if (!fields) {
    fields = {
      'content-type': entry.contentType,
      etag: `"${entry.hash}"`,
      'last-modified': httpDate(entry.modified),
      'cache-control': cacheControlFor(entry),
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
    };
    fileFields.set(entry, fields);
  }
  return fields;
}

/** RFC 9110 §13.1.2 and §13.1.3: If-None-Match (weak comparison) wins over If-Modified-Since. */
function isNotModified(headers: Headers, etag: string, modified: number): boolean {
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch !== null) return ifNoneMatchMatches(ifNoneMatch, etag);
  const ifModifiedSince = headers.get('if-modified-since');
  const since = ifModifiedSince === null ? undefined : parseHttpDate(ifModifiedSince);
  return since !== undefined && wholeSecond(modified) <= since;
}

/**
 * The single byte range asked for (RFC 9110 §14). A Range header that is not one
 * `bytes=` range (several ranges, other units, bad syntax) is ignored and the whole file
 * sent, as the RFC allows; so is a range whose If-Range no longer matches the file.
 */
function requestedRange(headers: Headers, etag: string, entry: FileEntry): ByteRange | 'unsatisfiable' | undefined {
  const header = headers.get('range');
  if (header === null) return undefined;
  const ifRange = headers.get('if-range');
  if (ifRange !== null && ifRange.trim() !== etag && ifRange.trim() !== httpDate(entry.modified)) return undefined;
  const match = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const size = entry.size;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const last = match[2] === '' ? Infinity : Number(match[2]);
  if (last < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}
