import type { FileEntry } from '../storage/file-index';

/** Revalidated on every use, so nothing outlives a new deploy. */
export const revalidate = 'public, max-age=0, must-revalidate';
const immutable = 'public, max-age=31536000, immutable';

/**
 * Content hashes as bundlers put them in file names, between `.` or `-` separators:
 * hex of 8+ characters in one letter case (webpack, Parcel: `app.3f2a9c1b.js`), esbuild's
 * upper-case base32 (`app-3F2A9C1B.css`), Rollup and Vite's 8-character base64url
 * (`index-Bq5N7sDZ.js`). Each needs a digit, and base64url both letter cases, so that words
 * and names such as `mobile1920x1080` never pass for hashes: a file cached for a year by
 * mistake could not be updated by its site.
 */
const hashToken = [/^(?=.*\d)(?:[0-9a-f]{8,}|[0-9A-F]{8,}|[2-7A-Z]{8,})$/, /^(?=.*\d)(?=.*[a-z])(?=.*[A-Z])[0-9A-Za-z]{8}$/];

function isFingerprinted(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const tokens = name.split(/[.-]/);
  if (tokens.length < 2) return false;
  // The last token is the extension (or the whole name when it has none).
  return tokens.slice(0, -1).some((token) => hashToken.some((pattern) => pattern.test(token)));
}

/** HTML is always revalidated: it names the assets of its deployment. Fingerprinted assets never change. */
export function cacheControlFor(entry: FileEntry): string {
  return !entry.contentType.startsWith('text/html') && isFingerprinted(entry.path) ? immutable : revalidate;
}
