import { type HostConfiguration, parseHostConfiguration } from '../configuration/parse';
import { jsonTooLarge, maxJsonBytes } from '../http/json-body';
import { Problem } from '../http/problem';
import { checkFileSize, checkFilesAndFolders, checkSiteSize } from '../content/file-rules';
import type { BlobLocation } from '../storage/deployments-table';
import { type FileEntry, byPath } from '../storage/file-index';
import type { PackWriter } from '../storage/pack-writer';
import { contentTypeOf } from '../content/content-type';
import { type DeployLimits, checkContentLength } from '../content/deploy-limits';
import { type PartHeader, type PartReceiver, maxFramingBytes, readMultipartFormData } from './multipart-reader';
import { packedPart } from './packed-part';
import { checkFilePath, commonFolderPrefixLength } from '../content/paths';
import { type TextPartRules, textPart } from './text-part';
import { maxAliasLength, maxMessageLength } from '../common/deployment-labels';
import { type RequestedLabels, checkedAlias, checkedMessage } from '../content/label-checks';
import type { StorageRoom } from '../quotas/admission';

export interface ReceivedFiles {
  /** Sorted by path; `pack` indexes `packs`. */
  entries: FileEntry[];
  totalBytes: number;
  /**
   * The packs the files lie in: the deploy's own pack first, unless nothing was written to it
   * (every file empty, or stored already), then those of the site's stored bytes it reuses.
   */
  packs: string[];
  /** The bytes this deploy wrote, where they lie in its own pack: what the site stores anew. */
  blobs: BlobLocation[];
}

/** What a deploy request carried. An absent member was not sent and stays as it is. */
export interface ReceivedDeploy {
  files?: ReceivedFiles;
  configuration?: HostConfiguration;
  /** The deployment's `message` and `alias` fields, checked. */
  labels: RequestedLabels;
}

export function isMultipartFormData(request: Request): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(request.headers.get('content-type') ?? '');
}

/**
 * Refuses a deploy whose Content-Length is more than any deploy within the limits can be, before
 * its body is read: files adding up to MAX_TOTAL_BYTES, the configuration, and the framing of
 * MAX_FILES parts at its largest (8 KiB of headers each). So the check never refuses a body that
 * reading would accept; a smaller body over the limits is refused as it streams, at the byte over.
 */
export function checkDeployLength(request: Request, limits: DeployLimits): void {
  checkContentLength(request, limits, limits.maxTotalBytes + maxJsonBytes + maxFramingBytes(limits.maxFiles + 1), 'a deploy');
}

/**
 * Reads a deploy's multipart body as a stream, part by part: each file's bytes go into `pack` and
 * its hash as they arrive, and limits are checked as they stream, so memory holds no file whole.
 * A file whose content the site stores already (`stored`, by hash) or this deploy wrote already
 * is dropped from the pack while the pack still holds it whole, and points at the stored copy:
 * bytes are stored once, however many deployments hold them. What the pack stores is checked
 * against what its user may still store (`room`) at every file's end, after that drop.
 * On any failure the pack is aborted before the error is rethrown.
 */
export async function receiveDeploy(
  request: Request,
  limits: DeployLimits,
  pack: PackWriter,
  now: number,
  stored: Promise<ReadonlyMap<string, BlobLocation>> = Promise.resolve(new Map()),
  room?: StorageRoom,
): Promise<ReceivedDeploy> {
  try {
    const received = await readParts(request, limits, pack, now, stored, room);
    if (received.files && !(await pack.finish())) dropOwnPack(received.files, pack.key);
    return received;
  } catch (error) {
    await pack.abort();
    throw error;
  }
}

const configurationPart: TextPartRules = {
  maxBytes: maxJsonBytes,
  tooLarge: () => jsonTooLarge('The configuration'),
  notText: () => new Problem('invalid-configuration', 'The configuration is not UTF-8 text.'),
};

/** A label field's text, refused as it streams past the most UTF-8 bytes its characters can take; `limit` names the limit. */
function labelPart(name: string, maxCharacters: number, limit?: string): TextPartRules {
  const detail = `The "${name}" field is at most ${maxCharacters} characters of UTF-8 text${limit ? ` (${limit})` : ''}.`;
  const extensions = limit ? { extensions: { limit, value: maxCharacters } } : {};
  return { maxBytes: 4 * maxCharacters, tooLarge: () => new Problem('invalid-request', detail, extensions), notText: () => new Problem('invalid-request', detail) };
}

/** The files when the deploy's own pack was not written: it holds none of their bytes. */
function dropOwnPack(files: ReceivedFiles, key: string): void {
  if (files.packs[0] !== key) return;
  files.packs.shift();
  for (const entry of files.entries) entry.pack = Math.max(0, entry.pack - 1);
}

async function readParts(
  request: Request,
  limits: DeployLimits,
  pack: PackWriter,
  now: number,
  stored: Promise<ReadonlyMap<string, BlobLocation>>,
  room: StorageRoom | undefined,
): Promise<ReceivedDeploy> {
  const entries: FileEntry[] = [];
  const packs = [pack.key];
  const packIndex = (key: string) => {
    const at = packs.indexOf(key);
    return at >= 0 ? at : packs.push(key) - 1;
  };
  /** The bytes this deploy wrote to its pack, by hash. */
  const written = new Map<string, BlobLocation>();
  const seen = new Set<string>();
  let totalBytes = 0;
  let configuration: HostConfiguration | undefined;
  const labels: RequestedLabels = {};
  const sent = new Set<string>();
  const once = (name: string) => {
    if (sent.has(name)) throw new Problem('invalid-request', `The "${name}" field may be sent only once.`);
    sent.add(name);
  };

  const receiveFile = (part: PartHeader): PartReceiver => {
    checkSiteSize(limits, entries.length + 1, totalBytes);
    const path = checkFilePath(part.filename ?? '');
    if (seen.has(path)) throw new Problem('invalid-path', `The file ${JSON.stringify(path)} is sent twice.`);
    seen.add(path);
    return packedPart(
      pack,
      (size, chunk) => {
        checkFileSize(limits, size);
        totalBytes += chunk.byteLength;
        checkSiteSize(limits, entries.length + 1, totalBytes);
      },
      async ({ offset, size, hash }) => {
        const copy = size === 0 ? undefined : (written.get(hash) ?? (await stored).get(hash));
        const location = copy?.size === size && pack.dropSince(offset) ? copy : { hash, pack: pack.key, offset, size };
        room?.check(pack.size);
        if (location.pack === pack.key && size > 0) written.set(hash, location);
        entries.push({ path, pack: packIndex(location.pack), offset: location.offset, size, hash, contentType: contentTypeOf(path, part.mediaType), modified: now });
      },
    );
  };

  await readMultipartFormData(request.headers.get('content-type') ?? '', request.body, (part) => {
    if (part.name === 'directory') return receiveFile(part);
    if (part.name === 'configuration') {
      once(part.name);
      return textPart(configurationPart, (text) => {
        configuration = parseHostConfiguration(text);
      });
    }
    if (part.name === 'message') {
      once(part.name);
      return textPart(labelPart('message', maxMessageLength, 'MAX_MESSAGE_LENGTH'), (text) => {
        labels.message = checkedMessage(text) ?? undefined;
      });
    }
    if (part.name === 'alias') {
      once(part.name);
      return textPart(labelPart('alias', maxAliasLength), (text) => {
        labels.alias = checkedAlias(text) ?? undefined;
      });
    }
    throw new Problem(
      'invalid-request',
      `Unknown field ${JSON.stringify(part.name)}: a deploy takes "configuration", "message", "alias" and "directory" fields only.`,
    );
  });
  if (entries.length === 0) return { configuration, labels };

  const strip = commonFolderPrefixLength(entries.map((entry) => entry.path));
  for (const entry of entries) entry.path = entry.path.slice(strip);
  checkFilesAndFolders(new Set(entries.map((entry) => entry.path)));
  entries.sort(byPath);
  return { configuration, labels, files: { entries, totalBytes, packs, blobs: [...written.values()] } };
}
