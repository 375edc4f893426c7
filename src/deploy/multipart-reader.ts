// One file over 250 lines: one streaming parser (a state machine over one reused buffer) and the byte helpers only it uses.
/**
 * A streaming reader of multipart/form-data bodies (RFC 7578; framing as RFC 2046 §5.1.1 says).
 *
 * Hand-written because no library reads into a reused buffer: the parsers on npm (such as
 * @remix-run/multipart-parser) hand out a part only once it is complete, holding a slice of every
 * read until then, so a 100 MiB deploy left about 100 MB of garbage in workerd. This reader reads
 * the body with a BYOB reader into one 64 KiB buffer and passes each part's bytes to its receiver
 * straight from that buffer, so its memory stays bounded whatever the size of the body.
 */
import { ContentType } from '@remix-run/headers/content-type';
import { Problem } from '../http/problem';
import { InvalidDisposition, type PartDisposition, parsePartDisposition } from './part-disposition';

/** What a part's headers say about it: its Content-Disposition's names (see `./part-disposition`), and its type. */
export interface PartHeader extends PartDisposition {
  /** The media type of the part's Content-Type, when it has one. */
  mediaType?: string;
}

/** Takes one part's body as it streams. */
export interface PartReceiver {
  /** The body's next bytes. They live in the read buffer: copy what must outlive the returned promise. */
  write(bytes: Uint8Array): Promise<void>;
  /** The body is complete. */
  end(): Promise<void>;
}

const readBufferBytes = 64 * 1024;
const maxHeaderBytes = 8 * 1024;
/** Bytes a body may carry before its first boundary (RFC 2046's preamble, which is ignored). */
const maxPreambleBytes = 8 * 1024;
/** RFC 2046 allows 1 to 70 characters. */
const maxBoundaryLength = 70;

/**
 * A byte string to search for, with Horspool's algorithm: each window is compared from its last
 * byte, and the byte found there tells how far the next window may start, so the search for a
 * 40-byte delimiter reads about one byte in 40. (A search that stops at each byte equal to the
 * first one, a CR, stops every 256 bytes or so in binary files.)
 */
class BytePattern {
  /** For each byte value: how far the window moves when its last byte has that value (at most 74, a delimiter's length). */
  readonly #shift = new Uint8Array(256);

  constructor(private readonly bytes: Uint8Array) {
    const last = bytes.byteLength - 1;
    this.#shift.fill(bytes.byteLength);
    for (let i = 0; i < last; i++) this.#shift[bytes[i]!] = last - i;
  }

  get byteLength(): number {
    return this.bytes.byteLength;
  }

  /** Where the pattern first occurs in `data`, or -1. */
  indexIn(data: Uint8Array): number {
    const last = this.bytes.byteLength - 1;
    const lastByte = this.bytes[last]!;
    for (let at = 0; at + last < data.byteLength; at += this.#shift[data[at + last]!]!) {
      if (data[at + last] === lastByte && matchesAt(data, this.bytes, at)) return at;
    }
    return -1;
  }
}

const crlf = bytesOf('\r\n');
const headerEnd = new BytePattern(bytesOf('\r\n\r\n'));
const dashDash = bytesOf('--');
const headerText = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads a multipart/form-data body: for each part, `receive` gets its headers and returns the
 * receiver of its body. A receiver's promises are awaited before the next read, so a slow
 * receiver slows the upload instead of buffering it. Malformed bodies throw an invalid-request
 * problem; errors of the stream and of receivers pass through. The epilogue is ignored.
 */
export async function readMultipartFormData(
  contentType: string,
  body: ReadableStream<Uint8Array> | null,
  receive: (part: PartHeader) => PartReceiver,
): Promise<void> {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) throw malformed('its Content-Type has no valid boundary');
  if (!body) throw malformed('it is empty');
  const reader = new BufferedReader(body.getReader({ mode: 'byob' }));
  // Each boundary is `--boundary` after a line break; the first may start the body, as if it followed one.
  const delimiter = new BytePattern(bytesOf(`\r\n--${boundary}`));
  try {
    let preambleBytes = 0;
    await reader.readUntil(delimiter, 'there is no opening boundary', async (bytes) => {
      preambleBytes += bytes.byteLength;
      if (preambleBytes > maxPreambleBytes) throw malformed('there is no opening boundary');
    });
    while (!(await reader.closesBody())) {
      const part = receive(parseHeaders(await reader.readHeaders()));
      await reader.readUntil(delimiter, 'there is no closing boundary', (bytes) => part.write(bytes));
      await part.end();
    }
  } finally {
    await reader.close();
  }
}

/**
 * The most bytes besides the parts' bodies that a body of `parts` parts can carry and still be
 * read: the preamble, every boundary line and header block at its largest, the closing boundary
 * and its line break.
 */
export function maxFramingBytes(parts: number): number {
  const delimiterBytes = crlf.byteLength + dashDash.byteLength + maxBoundaryLength;
  const partFraming = delimiterBytes + crlf.byteLength + maxHeaderBytes + headerEnd.byteLength;
  return maxPreambleBytes + parts * partFraming + delimiterBytes + dashDash.byteLength + crlf.byteLength;
}

/** The body, read into one reused buffer; `data` holds what was read and not yet consumed. */
class BufferedReader {
  #buffer: Uint8Array;
  #start: number;
  #end: number;
  #ended = false;

  constructor(private readonly reader: ReadableStreamBYOBReader) {
    this.#buffer = new Uint8Array(readBufferBytes);
    // The line break the first boundary may be thought to follow.
    this.#buffer.set(crlf);
    this.#start = 0;
    this.#end = crlf.byteLength;
  }

  get #data(): Uint8Array {
    return this.#buffer.subarray(this.#start, this.#end);
  }

  /**
   * Passes the bytes before `pattern` to `write` and consumes them and the pattern; throws a
   * malformed-body problem saying `ifMissing` when the body ends first.
   */
  async readUntil(pattern: BytePattern, ifMissing: string, write: (bytes: Uint8Array) => Promise<void>): Promise<void> {
    for (;;) {
      const data = this.#data;
      const found = pattern.indexIn(data);
      // Bytes that may begin the pattern stay until the next read tells.
      const safe = found === -1 ? Math.max(0, data.byteLength - pattern.byteLength + 1) : found;
      if (safe > 0) await write(data.subarray(0, safe));
      if (found !== -1) {
        this.#start += found + pattern.byteLength;
        return;
      }
      this.#start += safe;
      if (!(await this.#read())) throw malformed(ifMissing);
    }
  }

  /**
   * After a boundary: consumes the `--` that closes the body and returns true, else checks for the
   * line break that a part's headers follow (left unread) and returns false.
   */
  async closesBody(): Promise<boolean> {
    while (this.#end - this.#start < dashDash.byteLength) {
      if (!(await this.#read())) throw malformed('there is no closing boundary');
    }
    if (startsWith(this.#data, dashDash)) {
      this.#start += dashDash.byteLength;
      return true;
    }
    if (!startsWith(this.#data, crlf)) throw malformed('a boundary is not followed by a line break');
    return false;
  }

  /** Consumes a part's header block (the line break before it is still unread) and returns its text. */
  async readHeaders(): Promise<string> {
    for (;;) {
      // Searching from the line break before the block finds an empty block as well.
      const found = headerEnd.indexIn(this.#data);
      const tooLarge = crlf.byteLength + maxHeaderBytes + headerEnd.byteLength;
      if (found - crlf.byteLength > maxHeaderBytes || (found === -1 && this.#end - this.#start >= tooLarge)) {
        throw malformed(`a part has headers larger than ${maxHeaderBytes / 1024} KiB`);
      }
      if (found !== -1) {
        const block = this.#data.subarray(crlf.byteLength, found);
        this.#start += found + headerEnd.byteLength;
        try {
          return headerText.decode(block);
        } catch {
          throw malformed('a part has headers that are not UTF-8');
        }
      }
      if (!(await this.#read())) throw malformed('there is no closing boundary');
    }
  }

  /** Ends reading: whatever the client still sends (an epilogue, or the rest after an error) is discarded. */
  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }

  /** Moves the unconsumed bytes to the front and reads more after them; false at the body's end. */
  async #read(): Promise<boolean> {
    if (this.#ended) return false;
    this.#buffer.copyWithin(0, this.#start, this.#end);
    this.#end -= this.#start;
    this.#start = 0;
    // The read transfers the buffer's memory to a new ArrayBuffer, which the result views.
    const { value, done } = await this.reader.read(this.#buffer.subarray(this.#end)).catch(() => {
      // The body's stream fails only when the client's connection does: it closed before sending
      // all it announced. That is the request's fault, not ours.
      throw new Problem('invalid-request', 'The request body was cut short: the connection closed before it was complete.');
    });
    if (value) {
      this.#buffer = new Uint8Array(value.buffer);
      this.#end += value.byteLength;
    }
    this.#ended = done;
    return !done;
  }
}

/** The boundary parameter of a multipart Content-Type, quoted or not. */
function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1]?.replace(/\\(.)/g, '$1') ?? match?.[2];
  return boundary && boundary.length <= maxBoundaryLength ? boundary : undefined;
}

/**
 * A part's header block, read as strictly as its Content-Disposition: every line is one
 * `Name: value` header (a line break inside a quoted name, sent raw, leaves a line that is not)
 * and none is repeated, so a second Content-Disposition cannot turn one part into another.
 */
function parseHeaders(text: string): PartHeader {
  const headers = new Map<string, string>();
  for (const line of text === '' ? [] : text.split('\r\n')) {
    const header = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([^\r\n]*?)[ \t]*$/.exec(line);
    if (!header) throw malformed('a part has a header line that is not "Name: value"');
    const name = header[1]!.toLowerCase();
    if (headers.has(name)) throw malformed(`a part repeats its ${header[1]} header`);
    headers.set(name, header[2]!);
  }
  const disposition = headers.get('content-disposition');
  if (disposition === undefined) throw malformed('a part has no Content-Disposition');
  const contentType = headers.get('content-type');
  return {
    ...dispositionOf(disposition),
    mediaType: contentType === undefined ? undefined : ContentType.from(contentType).mediaType,
  };
}

function dispositionOf(header: string): PartDisposition {
  try {
    return parsePartDisposition(header);
  } catch (error) {
    if (error instanceof InvalidDisposition) throw malformed(`a part's Content-Disposition ${error.message}`);
    throw error;
  }
}

function malformed(why: string): Problem {
  return new Problem('invalid-request', `The multipart body is malformed: ${why}.`);
}

function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  return data.byteLength >= prefix.byteLength && matchesAt(data, prefix, 0);
}

/** Whether `pattern` occurs at `at` in `data`, which holds at least its length from there. */
function matchesAt(data: Uint8Array, pattern: Uint8Array, at: number): boolean {
  for (let i = 0; i < pattern.byteLength; i++) if (data[at + i] !== pattern[i]) return false;
  return true;
}
