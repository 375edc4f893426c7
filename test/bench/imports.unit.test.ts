/**
 * Benches and scripts run under plain Node (type stripping, no bundler; the Workers a bench
 * bundles are esbuild's), which resolves a relative import only by its exact file name. Vitest
 * and tsc resolve `./relay-server` without its extension, so a bench that loads a test helper
 * breaks only when `bench:quick` runs it. This walks every module a bench's or script's `.mjs`
 * loads and asks that each relative import names its file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** The `.mjs` files Node runs under `folder`, at any depth. */
function nodeEntries(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.mjs'))
    .map((path) => join(folder, path));
}

/** Every relative module specifier in a file: static imports, re-exports and `import()` of a literal. */
function relativeSpecifiers(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteral(argument)) found.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found.filter((specifier) => specifier.startsWith('.'));
}

/** Imports Node cannot resolve, as `importer: specifier`, over everything the entries load. */
function unresolvable(entries: string[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  const queue = [...entries];
  for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
    if (seen.has(path)) continue;
    seen.add(path);
    for (const specifier of relativeSpecifiers(path)) {
      const target = resolve(dirname(path), specifier);
      if (existsSync(target) && statSync(target).isFile()) {
        if (/\.(mjs|js|ts)$/.test(target)) queue.push(target);
      } else {
        problems.push(`${relative(root, path)}: ${specifier}`);
      }
    }
  }
  return problems;
}

describe('modules the benches and scripts load under Node', () => {
  it('name every relative import by its file, extension included', () => {
    const entries = [...nodeEntries(join(root, 'bench')), ...nodeEntries(join(root, 'scripts'))];
    expect(entries.length).toBeGreaterThan(10);
    expect(unresolvable(entries)).toEqual([]);
  });

  it('catches an import without its extension', () => {
    const planted = join(root, 'test-results', 'planted-extensionless.mjs');
    mkdirSync(dirname(planted), { recursive: true });
    writeFileSync(planted, "import { startRelayServer } from '../test/node/cli/relay-server';\n");
    try {
      expect(unresolvable([planted])).toEqual(['test-results/planted-extensionless.mjs: ../test/node/cli/relay-server']);
    } finally {
      rmSync(planted);
    }
  });
});
