import { randomBytes } from 'node:crypto';
import { CliError } from '../errors.ts';
import { type BodyWriter, writeFileContent } from '../upload.ts';
import type { LocalFile } from './collect.ts';

/**
 * The server drops one first folder that every uploaded path shares (a browser's directory
 * upload names the chosen folder). Every path goes under this folder, so the server drops
 * exactly it and the site's root is the deployed folder's content, whatever that holds.
 */
const uploadFolder = 'site';

export interface DeployUpload {
  /** The host options as JSON text. */
  configuration?: string;
  files: readonly LocalFile[];
}

export interface UploadProgress {
  /** Called as file bytes have been written to the network. */
  onBytes(bytes: number): void;
  onFileDone(): void;
  /** Called once the whole body has been written. */
  onComplete(): void;
}

export interface MultipartBody {
  contentType: string;
  /** Known up front from the file sizes, so the server and the progress bar know the total. */
  contentLength: number;
  write: BodyWriter;
}

const encoder = new TextEncoder();
const crlf = encoder.encode('\r\n');

/**
 * A file part's names: `filename` as browsers write it (HTML's multipart encoding: `"` as
 * `%22`), and `filename*` (RFC 5987), which the service prefers and which says a literal `%22`
 * unambiguously.
 */
function filenameParameters(value: string): string {
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new CliError('usage', `Cannot upload ${JSON.stringify(value)}: file names may not contain control characters.`);
  }
  const extended = encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `filename="${value.replaceAll('"', '%22')}"; filename*=UTF-8''${extended}`;
}

function partHeader(boundary: string, disposition: string, contentType: string): Uint8Array {
  return encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\nContent-Type: ${contentType}\r\n\r\n`);
}

/**
 * The deploy request body (fields `configuration` and `directory`), written as it is sent:
 * part headers, then each file read from disk a chunk at a time. Hand-written rather than a
 * FormData body so that memory holds two chunks, never the folder, the length is known
 * before sending, and progress follows the bytes onto the wire.
 */
export function multipartBody(upload: DeployUpload, progress: UploadProgress): MultipartBody {
  const boundary = `sitehost-${randomBytes(16).toString('hex')}`;
  const configuration =
    upload.configuration === undefined
      ? undefined
      : { header: partHeader(boundary, 'name="configuration"', 'application/json'), text: encoder.encode(upload.configuration) };
  const files = upload.files.map((file) => ({
    file,
    header: partHeader(boundary, `name="directory"; ${filenameParameters(`${uploadFolder}/${file.path}`)}`, 'application/octet-stream'),
  }));
  const closing = encoder.encode(`--${boundary}--\r\n`);

  const contentLength =
    (configuration ? configuration.header.byteLength + configuration.text.byteLength + crlf.byteLength : 0) +
    files.reduce((sum, { file, header }) => sum + header.byteLength + file.size + crlf.byteLength, 0) +
    closing.byteLength;

  const write: BodyWriter = async (send) => {
    if (configuration) {
      await send(configuration.header);
      await send(configuration.text);
      await send(crlf);
    }
    for (const { file, header } of files) {
      await send(header);
      await writeFileContent(file.absolutePath, file.size, send, progress.onBytes);
      await send(crlf);
      progress.onFileDone();
    }
    await send(closing);
    progress.onComplete();
  };

  return { contentType: `multipart/form-data; boundary=${boundary}`, contentLength, write };
}
