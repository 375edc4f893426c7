import { randomBytes } from 'node:crypto';
import { type BodyWriter, writeFileContent } from '../upload.ts';
import type { HashedLocalFile } from './hash.ts';

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
 * the content's SHA-256, written as it is sent, each file read from disk a chunk at a time. With
 * `manifest`, a first part named `manifest` carries it: the body of `POST .../deployments` in one.
 * Hand-written rather than a FormData body so that memory holds two chunks, never the folder,
 * the length is known before sending, and progress follows the bytes onto the wire.
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
    if (opening.byteLength > 0) await send(opening);
    for (const { file, header } of parts) {
      await send(header);
      await writeFileContent(file.absolutePath, file.size, send, progress.onBytes);
      await send(crlf);
      progress.onFileDone();
    }
    await send(closing);
  };

  return { contentType: multipartType(boundary), contentLength, write };
}

export function newBoundary(): string {
  return `sitehost-${randomBytes(16).toString('hex')}`;
}

export function multipartType(boundary: string): string {
  return `multipart/form-data; boundary=${boundary}`;
}
