/**
 * One owner decides what is deleted (docs/design.md): a domain's coordinator, under its lock. The
 * Worker writes objects and asks the coordinator to discard what no change took; it deletes none.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../../src');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Where R2 objects are deleted: `deleteObjects` (src/storage/objects.ts), or a bucket's own `delete`. */
const deletes = /\bdeleteObjects\(|\b(?:FILES|bucket)\.delete\(/;

describe('who deletes R2 objects', () => {
  it('is the coordinator alone (and the storage function it calls)', () => {
    const elsewhere = sourceFiles(src)
      .map((file) => relative(src, file))
      .filter((file) => !file.startsWith('coordinator/') && file !== 'storage/objects.ts')
      .filter((file) => deletes.test(readFileSync(join(src, file), 'utf8')));
    expect(elsewhere).toEqual([]);
  });
});
