/**
 * The rules a site's files obey, whichever path writes them: a deploy (src/deploy/receive.ts),
 * a single-file upload (src/deploy/upload-file.ts) and the coordinator's commit of that upload.
 * Plain functions of paths and sizes; each throws the problem a user gets.
 */
import { type DeployLimits, limitExceeded } from './deploy-limits';
import { fileAndFolder, foldersOf } from './paths';

/** 400 when a path of `paths` is also the folder of another (`a` beside `a/b.html`). */
export function checkFilesAndFolders(paths: ReadonlySet<string>): void {
  for (const path of paths) {
    for (const folder of foldersOf(path)) if (paths.has(folder)) throw fileAndFolder(folder);
  }
}

/** 413 when one file is larger than `MAX_FILE_BYTES`. */
export function checkFileSize(limits: DeployLimits, size: number): void {
  if (size > limits.maxFileBytes) {
    throw limitExceeded(limits, 'maxFileBytes', `A file may be at most ${limits.maxFileBytes} bytes`);
  }
}

/** 413 when a site would hold more than `MAX_FILES` files or `MAX_TOTAL_BYTES` bytes. */
export function checkSiteSize(limits: DeployLimits, fileCount: number, totalBytes: number): void {
  if (fileCount > limits.maxFiles) {
    throw limitExceeded(limits, 'maxFiles', `A site may contain at most ${limits.maxFiles} files`);
  }
  if (totalBytes > limits.maxTotalBytes) {
    throw limitExceeded(limits, 'maxTotalBytes', `A site's files may add up to at most ${limits.maxTotalBytes} bytes`);
  }
}
