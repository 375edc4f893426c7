/**
 * A site's kept deployments are its coordinator's to read and write (issue 32: they moved out of
 * the global D1 into its storage, docs/design.md "Capacity", step 2). Outside src/coordinator/
 * nothing may reach what D1 kept of them before, which only a coordinator's move reads, so that
 * no reader appears that would silently read an emptied table: the preview hosts ask D1's
 * directory for the domain and the coordinator for the record.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../../src');
const table = 'storage/deployments-table';


function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The names `file` imports as values (not `type`) from the deployments table's module. */
function valueImportsOfTable(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return [];
    if (!statement.moduleSpecifier.text.endsWith(table) || statement.importClause?.isTypeOnly) return [];
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) return bindings ? ['*'] : [];
    return bindings.elements.filter((element) => !element.isTypeOnly).map((element) => element.name.text);
  });
}

it("reads and writes a site's deployments only through its coordinator", () => {
  const found: Record<string, string[]> = {};
  for (const file of sources(src)) {
    const name = relative(src, file);
    if (name.startsWith('coordinator/') || name.startsWith('storage/')) continue;
    const names = valueImportsOfTable(file);
    if (names.length > 0) found[name] = names.sort();
  }
  expect(found).toEqual({});
});
