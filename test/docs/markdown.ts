import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const repo = resolve(import.meta.dirname, '../..');

/** The project's own documentation, as paths from the repository's root. */
export const markdownFiles: readonly string[] = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(repo, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
