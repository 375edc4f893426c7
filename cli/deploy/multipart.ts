import { randomBytes } from 'node:crypto';
import { type BodyWriter, writeFileContent } from '../upload.ts';
import { ChunkGatherer } from './chunks.ts';
import { type HashedLocalFile, readSmallFile, smallFileBytes } from './hash.ts';

export interface UploadProgress {
  /** Called as file bytes have been written to the network. */
  onBytes(bytes: number): void;
  onFileDone(): void;
  /** Called once every byte to send has been sent. */
  onComplete(): void;
}

export interface MultipartBody {
  contentType: string;
  /** Known up front from the file sizes, so the server knows the total. */
  contentLength: number;
  write: BodyWriter;
}

const encoder = new TextEncoder();
const crlf = encoder.encode('\r\n');

/**
 * The body of `PUT .../deployments/<id>/blobs`: one part per file, named `blob`, its file name
 * the content's SHA-256, written as it is sent. With `manifest`, a first part named `manifest`
 * carries it: the body of `POST .../deployments` in one. Small files are read whole and gathered
 * with the parts' headers into large writes (./chunks.ts); a larger one is streamed from disk a
 * chunk at a time. Hand-written rather than a FormData body so that memory holds a few chunks,
 * never the folder, the length is known before sending, and progress follows the bytes onto the wire.
 */
export function blobsBody(files: readonly HashedLocalFile[], progress: UploadProgress, manifest?: string, boundary = newBoundary()): MultipartBody {
  const opening = encoder.encode(
    manifest === undefined
      ? ''
      : `--${boundary}\r\nContent-Disposition: form-data; name="manifest"\r\nContent-Type: application/json\r\n\r\n${manifest}\r\n`,
  );
  const parts = files.map((file) => ({
    file,
    header: encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="blob"; filename="${file.hash}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
  }));
  const closing = encoder.encode(`--${boundary}--\r\n`);
  const contentLength =
    opening.byteLength + parts.reduce((sum, { file, header }) => sum + header.byteLength + file.size + crlf.byteLength, 0) + closing.byteLength;

  const write: BodyWriter = async (send) => {
    const body = new ChunkGatherer(send);
    await body.add(opening);
    for (const { file, header } of parts) {
      await body.add(header);
      if (file.size <= smallFileBytes) {
        await body.fill(file.size + 1, (buffer, offset) => readSmallFile(file, buffer, offset).byteLength);
        body.afterSent(() => {
          progress.onBytes(file.size);
          progress.onFileDone();
        });
      } else {
        // What is gathered goes first; the file follows it onto the wire.
        await body.flush();
        await writeFileContent(file.absolutePath, file.size, send, progress.onBytes);
        progress.onFileDone();
      }
      await body.add(crlf);
    }
    await body.add(closing);
    await body.end();
  };

  return { contentType: multipartType(boundary), contentLength, write };
}

export function newBoundary(): string {
  return `sitehost-${randomBytes(16).toString('hex')}`;
}

export function multipartType(boundary: string): string {
  return `multipart/form-data; boundary=${boundary}`;
}
