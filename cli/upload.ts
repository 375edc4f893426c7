import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import type { HeaderLookup } from '../src/common/received-problem.ts';
import { CliError } from './errors.ts';

/**
 * node:http (and node:https, loaded only for https: TLS takes 3 ms to load) are not imported
 * statically: an ESM import of node:http evaluates all its exports, among them undici's, and
 * loading undici takes Node about 20 ms, a fifth of a one-file redeploy. `require` (as
 * `process.getBuiltinModule` would, from Node 20.16 on) leaves them unevaluated. For the same
 * reason answers are not web Responses (undici's class).
 */
const builtin = createRequire(import.meta.url);
const client = (url: URL): typeof import('node:http') => builtin(url.protocol === 'https:' ? 'node:https' : 'node:http');

/** Hands one chunk to the network; resolves once the chunk has been written and may be reused. */
export type ChunkWriter = (chunk: Uint8Array) => Promise<void>;

/** Produces a request body chunk by chunk. */
export type BodyWriter = (write: ChunkWriter) => Promise<void>;

/** An HTTP answer: the parts of a fetch `Response` the CLI reads. Its body is read once. */
export class Answer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeaderLookup;
  readonly #incoming: IncomingMessage;

  constructor(incoming: IncomingMessage) {
    this.#incoming = incoming;
    this.status = incoming.statusCode ?? 500;
    this.statusText = incoming.statusMessage ?? '';
    this.headers = {
      get: (name) => {
        const value = incoming.headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : (value ?? null);
      },
    };
  }

  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.#incoming) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** Discards the body unread, as `Response.body.cancel()` does. */
  readonly body = {
    cancel: async (): Promise<void> => {
      this.#incoming.resume();
    },
  };
}

/**
 * Sends a request whose body `writeBody` produces (none without it), and resolves to the answer as
 * soon as it arrives: an early refusal stops the upload.
 *
 * node:http rather than fetch: its write callback says when a chunk is on the wire, so the
 * same buffers serve the whole upload. Streaming 50 MB through fetch kept every sent chunk
 * alive until a full garbage collection and grew the process by about 60 MB.
 */
export function streamRequest(url: URL, method: string, headers: Record<string, string>, writeBody?: BodyWriter): Promise<Answer> {
  const request = client(url).request(url, { method, headers });
  // A body of unknown length is sent as it is produced: its headers go at once, and the server
  // starts on them (authentication, say) meanwhile.
  if (headers['content-length'] === undefined) request.flushHeaders();
  let answered = false;
  const stopped = new Error('The server answered before the upload ended.');
  const write: ChunkWriter = (chunk) =>
    new Promise((resolve, reject) => {
      if (answered) return reject(stopped);
      request.write(chunk, (error) => (error ? reject(error) : resolve()));
    });

  return new Promise((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (incoming) => {
      answered = true;
      // An upload the server answered early cannot go on, and its connection cannot serve another request.
      incoming.on('end', () => {
        if (!request.writableFinished) request.destroy();
      });
      resolve(new Answer(incoming));
    });
    (writeBody ?? (async () => {}))(write).then(
      () => request.end(),
      (error: unknown) => {
        if (error === stopped || answered) return;
        request.destroy();
        reject(error);
      },
    );
  });
}

const chunkBytes = 256 * 1024;

/**
 * Writes a file's content through two alternating buffers: one is read from disk while the
 * other is on its way out. The file must still have the size it had when listed, or the
 * request's declared length would be wrong.
 */
export async function writeFileContent(
  path: string,
  expectedSize: number,
  write: ChunkWriter,
  onBytes: (bytes: number) => void = () => {},
): Promise<void> {
  const changed = () => new CliError('failure', `${path} changed while it was being uploaded; try again.`);
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    throw new CliError('failure', `Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)] as const;
    const inFlight: [Promise<void>, Promise<void>] = [Promise.resolve(), Promise.resolve()];
    let position = 0;
    for (let turn: 0 | 1 = 0; ; turn = turn === 0 ? 1 : 0) {
      await inFlight[turn];
      const buffer = buffers[turn];
      // Read one byte past the expected end, to notice a file that grew.
      const wanted = Math.min(buffer.byteLength, expectedSize + 1 - position);
      const { bytesRead } = await file.read(buffer, 0, wanted, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      if (position > expectedSize) throw changed();
      inFlight[turn] = write(buffer.subarray(0, bytesRead)).then(() => onBytes(bytesRead));
      // Awaited on this buffer's next turn; until then a failure must not count as unhandled.
      inFlight[turn].catch(() => {});
    }
    await Promise.all(inFlight);
    if (position !== expectedSize) throw changed();
  } finally {
    await file.close();
  }
}
