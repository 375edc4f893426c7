import {
  MaxFileSizeExceededError,
  MaxHeaderSizeExceededError,
  MaxPartsExceededError,
  MaxTotalSizeExceededError,
  MultipartParseError,
  type MultipartPart,
  parseMultipartRequest,
} from '@remix-run/multipart-parser';
import { base64url } from 'jose';
import { type HostConfiguration, parseHostConfiguration } from '../configuration/parse';
import { Problem } from '../http/problem';
import { type FileEntry, byPath } from '../storage/file-index';
import type { PackWriter } from '../storage/pack-writer';
import { contentTypeOf } from './content-type';
import { type DeployLimits, limitExceeded } from './limits';
import { checkFilePath, commonFolderPrefixLength, fileAndFolder, foldersOf } from './paths';

/** Larger configuration parts are refused: host options are a few kilobytes at most. */
const maxConfigurationBytes = 1024 * 1024;

export interface ReceivedFiles {
  /** Sorted by path; every entry is in pack 0 (the pack the files were written to). */
  entries: FileEntry[];
  totalBytes: number;
  /** False when every file was empty and no pack object was written. */
  packWritten: boolean;
}

/** What a deploy request carried. An absent member was not sent and stays as it is. */
export interface ReceivedDeploy {
  files?: ReceivedFiles;
  configuration?: HostConfiguration;
}

export function isMultipartFormData(request: Request): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(request.headers.get('content-type') ?? '');
}

/**
 * Reads a deploy's multipart body as a stream, part by part: files go into `pack` as they
 * arrive and limits are checked as each part completes, so memory holds one file at most.
 * On any failure the pack is aborted before the error is rethrown.
 */
export async function receiveDeploy(
  request: Request,
  limits: DeployLimits,
  pack: PackWriter,
  now: number,
): Promise<ReceivedDeploy> {
  try {
    const received = await readParts(request, limits, pack, now);
    if (received.files) received.files.packWritten = await pack.finish();
    return received;
  } catch (error) {
    await pack.abort();
    throw translateParseError(error, limits);
  }
}

async function readParts(
  request: Request,
  limits: DeployLimits,
  pack: PackWriter,
  now: number,
): Promise<ReceivedDeploy> {
  const entries: FileEntry[] = [];
  const seen = new Set<string>();
  let totalBytes = 0;
  let configuration: HostConfiguration | undefined;
  let configurationSeen = false;

  const parts = parseMultipartRequest(request, {
    maxFileSize: limits.maxFileBytes,
    // Backstops only: the exact limits are checked below with clearer answers.
    maxParts: limits.maxFiles + 2,
    maxTotalSize: limits.maxTotalBytes + maxConfigurationBytes + 1,
  });
  for await (const part of parts) {
    if (part.name === 'configuration') {
      if (configurationSeen) throw new Problem('invalid-request', 'The "configuration" field may be sent only once.');
      configurationSeen = true;
      configuration = readConfiguration(part);
    } else if (part.name === 'directory') {
      if (entries.length === limits.maxFiles) {
        throw limitExceeded(limits, 'maxFiles', `A deploy may contain at most ${limits.maxFiles} files`);
      }
      const path = checkFilePath(part.filename ?? '');
      if (seen.has(path)) throw new Problem('invalid-path', `The file ${JSON.stringify(path)} is sent twice.`);
      seen.add(path);
      const bytes = part.bytes;
      totalBytes += bytes.byteLength;
      if (totalBytes > limits.maxTotalBytes) {
        throw limitExceeded(limits, 'maxTotalBytes', `The files add up to more than ${limits.maxTotalBytes} bytes`);
      }
      const [hash, offset] = await Promise.all([sha256(bytes), pack.append(bytes)]);
      entries.push({
        path,
        pack: 0,
        offset,
        size: bytes.byteLength,
        hash,
        contentType: contentTypeOf(path, part.headers['content-type'] && part.mediaType),
        modified: now,
      });
    } else {
      throw new Problem(
        'invalid-request',
        `Unknown field ${JSON.stringify(part.name ?? '')}: a deploy takes "configuration" and "directory" fields only.`,
      );
    }
  }
  if (entries.length === 0) return { configuration };

  const strip = commonFolderPrefixLength(entries.map((entry) => entry.path));
  for (const entry of entries) entry.path = entry.path.slice(strip);
  const paths = new Set(entries.map((entry) => entry.path));
  const clash = [...paths].flatMap(foldersOf).find((folder) => paths.has(folder));
  if (clash !== undefined) throw fileAndFolder(clash);
  entries.sort(byPath);
  return { configuration, files: { entries, totalBytes, packWritten: false } };
}

function readConfiguration(part: MultipartPart): HostConfiguration {
  if (part.size > maxConfigurationBytes) {
    throw new Problem('payload-too-large', `The configuration is larger than ${maxConfigurationBytes} bytes.`, {
      extensions: { limit: 'configuration', value: maxConfigurationBytes },
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(part.bytes);
  } catch {
    throw new Problem('invalid-configuration', 'The configuration is not UTF-8 text.');
  }
  return parseHostConfiguration(text);
}

async function sha256(bytes: Uint8Array): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}

/** Maps the multipart parser's typed errors to problems; other errors pass through. */
function translateParseError(error: unknown, limits: DeployLimits): unknown {
  if (error instanceof MaxFileSizeExceededError) {
    return limitExceeded(limits, 'maxFileBytes', `A file is larger than ${limits.maxFileBytes} bytes`);
  }
  if (error instanceof MaxPartsExceededError) {
    return limitExceeded(limits, 'maxFiles', `A deploy may contain at most ${limits.maxFiles} files`);
  }
  if (error instanceof MaxTotalSizeExceededError) {
    return limitExceeded(limits, 'maxTotalBytes', `The files add up to more than ${limits.maxTotalBytes} bytes`);
  }
  if (error instanceof MaxHeaderSizeExceededError) {
    return new Problem('invalid-request', 'A part of the multipart body has headers larger than 8 KiB.');
  }
  if (error instanceof MultipartParseError) {
    return new Problem('invalid-request', `The multipart body is malformed: ${error.message}.`);
  }
  return error;
}
