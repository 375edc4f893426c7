/**
 * The layout of src/ as docs/architecture.md draws it ("Layers"): folders in layers, each
 * importing values only from the layers below it, and files a reader can hold.
 *
 * Why a test that reads the imports, and not a lint rule such as `import/no-cycle` or
 * dependency-cruiser's `no-circular`: those see cycles between modules, and two folders can
 * import each other without any module cycle (a → b/x, b/y → a/z). The rule here is about
 * folders, and TypeScript's own parser tells a value import from `import type`, which erases.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../src');

/**
 * Bottom to top; a folder may import values from the folders on earlier lines only. Folders
 * on one line are peers and import none of each other. The files at the top of src/
 * (index.ts, queues.ts) wire everything and are imported by none.
 */
const layers: readonly (readonly string[])[] = [
  ['common'],
  ['http'],
  ['platform', 'protection'],
  ['rules'],
  ['storage', 'configuration', 'auth', 'domains', 'cloudflare-api'],
  ['content', 'certificates', 'events', 'quotas'],
  ['coordinator'],
  ['deploy', 'serving', 'dashboard'],
  ['api'],
];

/** No file in src/ longer than this many lines: a reader holds it whole. */
const maxFileLines = 400;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative specifiers a file imports or re-exports values from (`import type` left out). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return specifiers.filter((specifier) => specifier.startsWith('.'));
}

/** The file a relative specifier names: as written, with `.ts`, or a folder's index.ts. */
function moduleFile(path: string): string {
  return [path, `${path}.ts`, join(path, 'index.ts')].find((candidate) => existsSync(candidate) && statSync(candidate).isFile()) ?? path;
}

/** The top folder of src/ a path lies in; undefined for the files at the top and outside src/. */
function folderOf(path: string): string | undefined {
  const parts = relative(src, path).split('/');
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

const layerOf = new Map(layers.flatMap((folders, index) => folders.map((folder) => [folder, index] as const)));
const files = sourceFiles(src);
const imports = files.flatMap((file) =>
  valueImports(file).map((specifier) => {
    const target = moduleFile(resolve(dirname(file), specifier));
    return { file: relative(src, file), from: folderOf(file), to: folderOf(target), insideSrc: !relative(src, target).startsWith('..'), specifier };
  }),
);

describe('the layout of src/', () => {
  it('places every folder in a layer', () => {
    const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
    expect(folders.filter((folder) => !layerOf.has(folder))).toEqual([]);
  });

  it('imports values only from lower layers, so no two folders import each other', () => {
    const upward = imports.filter(({ from, to }) => from !== undefined && to !== undefined && from !== to && layerOf.get(to)! >= layerOf.get(from)!);
    expect(upward.map(({ file, specifier }) => `${file} imports ${specifier}`)).toEqual([]);
  });

  it('imports nothing from the wiring at the top of src/', () => {
    const intoWiring = imports.filter(({ from, to, insideSrc }) => from !== undefined && to === undefined && insideSrc);
    expect(intoWiring.map(({ file, specifier }) => `${file} imports ${specifier}`)).toEqual([]);
  });

  it(`keeps every file within ${maxFileLines} lines`, () => {
    const long = files.map((file) => ({ file: relative(src, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 })).filter(({ lines }) => lines > maxFileLines);
    expect(long).toEqual([]);
  });

  it('has no two folders whose names differ only by a plural', () => {
    const folders = new Set(files.map((file) => relative(src, dirname(file))));
    const plurals = [...folders].filter((folder) => folders.has(`${folder}s`) || folders.has(`${folder}es`));
    expect(plurals).toEqual([]);
  });
});
