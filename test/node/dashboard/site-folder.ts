import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The folder a person would pick: `my-site/` with three files in nested folders. */
export const siteFiles: Record<string, string> = {
  'index.html': '<!doctype html><title>Dashboard test</title><link rel="stylesheet" href="/css/style.css"><h1>Hello from the dashboard</h1><script src="/js/app/main.js"></script>\n',
  'css/style.css': 'h1 { color: rebeccapurple; }\n',
  'js/app/main.js': 'document.title += " (scripted)";\n',
};

export async function makeSiteFolder(): Promise<{ parent: string; folder: string }> {
  const parent = await mkdtemp(join(tmpdir(), 'sitehost-dashboard-site-'));
  const folder = join(parent, 'my-site');
  for (const [path, content] of Object.entries(siteFiles)) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), content);
  }
  return { parent, folder };
}
