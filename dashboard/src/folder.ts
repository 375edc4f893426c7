/** A file chosen for a deploy and its path relative to the chosen folder's parent, as a browser's directory upload names it. */
export interface SelectedFile {
  file: File;
  path: string;
}

/** From `<input type=file webkitdirectory>`: each File carries `webkitRelativePath` (`site/css/a.css`). */
export function filesFromInput(input: HTMLInputElement): SelectedFile[] {
  return Array.from(input.files ?? [], (file) => ({ file, path: file.webkitRelativePath || file.name }));
}

/** From a drop: walks dropped folders (File and Directory Entries API), keeping paths like the input does. */
export async function filesFromDrop(transfer: DataTransfer): Promise<SelectedFile[]> {
  // Entries must be taken synchronously, before the drop event's data store is closed.
  const entries = Array.from(transfer.items, (item) => item.webkitGetAsEntry()).filter((entry) => entry !== null);
  const files: SelectedFile[] = [];
  for (const entry of entries) await collect(entry, files);
  return files;
}

async function collect(entry: FileSystemEntry, into: SelectedFile[]): Promise<void> {
  if (isFile(entry)) {
    const file = await new Promise<File>((resolve, reject) => entry.file(resolve, reject));
    into.push({ file, path: entry.fullPath.replace(/^\//, '') });
  } else if (isDirectory(entry)) {
    for (const child of await readAll(entry.createReader())) await collect(child, into);
  }
}

/** readEntries answers in batches (Chromium: 100 at a time) until it answers with none. */
async function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

const isFile = (entry: FileSystemEntry): entry is FileSystemFileEntry => entry.isFile;
const isDirectory = (entry: FileSystemEntry): entry is FileSystemDirectoryEntry => entry.isDirectory;
