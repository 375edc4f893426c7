import { Problem } from '../http/problem';

export const maxPathBytes = 1024;
const encoder = new TextEncoder();
/**
 * Unicode's explicit embeddings, overrides and isolates: invisible, they reorder what is shown,
 * so `photo\u202Egpj.exe` looks like `photoexe.jpg`. The implicit marks (LRM, RLM, ALM) that
 * right-to-left names may need stay allowed.
 */
const bidiControl = /[\u202A-\u202E\u2066-\u2069]/;

/**
 * Checks one uploaded file name as docs/design.md ("Deploy") says and returns it in Unicode NFC.
 * Names are relative paths as a browser's directory upload sends them: `dist/css/a.css`.
 */
export function checkFilePath(name: string): string {
  const refuse = (why: string): never => {
    throw new Problem('invalid-path', `The file name ${JSON.stringify(name)} is refused: ${why}.`);
  };
  const path = name.normalize('NFC');
  if (path === '') refuse('it is empty');
  if (encoder.encode(path).byteLength > maxPathBytes) refuse(`it is longer than ${maxPathBytes} bytes`);
  if (path.includes('\\')) refuse('backslashes are not allowed');
  if (/\p{Cc}/u.test(path)) refuse('control characters are not allowed');
  if (bidiControl.test(path)) refuse('bidirectional control characters are not allowed');
  if (path.startsWith('/')) refuse('absolute paths are not allowed');
  for (const segment of path.split('/')) {
    if (segment === '') refuse('empty path segments are not allowed');
    if (segment === '.' || segment === '..') refuse('"." and ".." segments are not allowed');
  }
  return path;
}

/**
 * The length of the folder prefix (`dist/`) to drop when every path shares one first folder,
 * as a browser's directory upload names it; 0 otherwise.
 */
export function commonFolderPrefixLength(paths: readonly string[]): number {
  const first = paths[0];
  const slash = first?.indexOf('/') ?? -1;
  if (slash < 0) return 0;
  const prefix = first!.slice(0, slash + 1);
  return paths.every((path) => path.startsWith(prefix)) ? prefix.length : 0;
}

/** The folders of `path`, shortest first: `a/b/c.html` → `a`, `a/b`. */
export function foldersOf(path: string): string[] {
  const folders: string[] = [];
  for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) folders.push(path.slice(0, slash));
  return folders;
}

/** 400 for a path that would be a file and a folder at once (`a` beside `a/b.html`). */
export function fileAndFolder(path: string): Problem {
  return new Problem('invalid-path', `${JSON.stringify(path)} cannot be both a file and a folder.`);
}
