import mime from 'mime';
import { terminalSafe } from '../../src/common/control-characters.ts';
import { stat } from 'node:fs/promises';
import pc from 'picocolors';
import { connect } from '../credentials.ts';
import { CliError } from '../errors.ts';
import { formatTimestamp, printJson, table } from '../format.ts';
import { type BodyWriter, writeFileContent } from '../upload.ts';
import type { FileEntry, FileListing } from '../../src/common/api-types.ts';
import { formatBytes } from '../../src/common/format-bytes.ts';
import { filesPath } from '../../src/common/site-paths.ts';

/** A local file (its length known) or standard input, as a request body. */
async function bodyOf(source: string): Promise<{ write: BodyWriter; length?: number }> {
  if (source === '-') {
    return {
      write: async (send) => {
        for await (const chunk of process.stdin) await send(chunk as Buffer);
      },
    };
  }
  const stats = await stat(source).catch((error: NodeJS.ErrnoException) => {
    throw new CliError('usage', `Cannot read ${source}: ${error.code === 'ENOENT' ? 'no such file' : error.message}.`);
  });
  if (!stats.isFile()) throw new CliError('usage', `Cannot upload ${source}: it is not a file.`);
  return { write: (send) => writeFileContent(source, stats.size, send), length: stats.size };
}

export async function listFiles(domain: string, path: string, options: { recursive?: boolean; json?: boolean }): Promise<void> {
  const api = await connect();
  const query = options.recursive ? '?recursive=1' : '';
  const entries = await api.json<FileListing>(`${filesPath(domain, path, 'directory')}${query}`);
  if (options.json) return printJson(entries);
  if (entries.length === 0) return console.log('No files.');
  const rows = entries.map((entry) =>
    entry.type === 'directory'
      ? [pc.blue(terminalSafe(entry.path.endsWith('/') ? entry.path : `${entry.path}/`)), '-', '-', '-']
      : [terminalSafe(entry.path), formatBytes(entry.size), formatTimestamp(entry.modified), terminalSafe(entry.contentType)],
  );
  console.log(table(['PATH', 'SIZE', 'MODIFIED', 'TYPE'], rows));
}

export async function putFile(domain: string, path: string, file: string | undefined, options: { json?: boolean }): Promise<void> {
  const { write, length } = await bodyOf(file ?? path);
  const headers: Record<string, string> = { 'content-type': mime.getType(path) ?? 'application/octet-stream' };
  if (length !== undefined) headers['content-length'] = String(length);
  const api = await connect();
  const response = await api.upload(filesPath(domain, path), 'PUT', headers, write);
  const entry = (await response.json()) as FileEntry;
  if (options.json) return printJson(entry);
  const verb = response.status === 201 ? 'Added' : 'Replaced';
  console.log(`${pc.green('✔')} ${verb} ${terminalSafe(entry.path)} (${formatBytes(entry.size)}) on ${pc.bold(domain)}.`);
}

export async function removeFile(domain: string, path: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const response = await api.request(filesPath(domain, path), { method: 'DELETE' });
  await response.body?.cancel();
  if (options.json) return printJson({ domain, path, removed: true });
  console.log(`${pc.green('✔')} Removed ${path} from ${pc.bold(domain)}.`);
}
