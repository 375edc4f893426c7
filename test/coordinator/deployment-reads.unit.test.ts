/**
 * A site's kept deployments are its coordinator's to read and write (issue 32: they move out of
 * the global D1 into its storage, docs/design.md "Capacity", step 2). Outside src/coordinator/
 * nothing may reach their D1 rows but the preview hosts, which the move has yet to take over, so that no new
 * reader appears meanwhile that the move would silently leave reading an emptied table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../../src');
const table = 'storage/deployments-table';

/** What may still be imported as values from the table's module, and by whom. */
const stillInD1: Record<string, readonly string[]> = {
  // A preview or alias host names a deployment without its domain: a D1 directory is planned for it.
  'serving/preview.ts': ['getDeploymentById', 'latestAliased'],
};

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

it("reads and writes a site's deployments in D1 only from its coordinator, but for the preview hosts", () => {
  const found: Record<string, string[]> = {};
  for (const file of sources(src)) {
    const name = relative(src, file);
    if (name.startsWith('coordinator/') || name.startsWith('storage/')) continue;
    const names = valueImportsOfTable(file);
    if (names.length > 0) found[name] = names.sort();
  }
  expect(found).toEqual(Object.fromEntries(Object.entries(stillInD1).map(([name, names]) => [name, [...names].sort()])));
});
