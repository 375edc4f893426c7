/**
 * The layout of src/ as docs/architecture.md draws it ("Layers", "The coordinator's rooms"): folders in layers, each
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
  ['content', 'certificates', 'events', 'quotas', 'traffic'],
  ['coordinator'],
  ['deploy', 'serving', 'dashboard'],
  ['api'],
];

/**
 * The rooms of src/coordinator/, bottom to top, by the same rule: a room imports values only
 * from the rooms on earlier lines, rooms on one line import none of each other. Every room may
 * import the shared files at the top of the folder; only the Durable Object's class imports the
 * rooms, and no room imports it.
 */
const coordinatorRooms: readonly (readonly string[])[] = [
  ['access', 'edge', 'records'],
  ['sweeps'],
  ['commit'],
  ['deploys'],
];

/** The class that wires the rooms together, and the files every room shares. */
const coordinatorClass = 'coordinator.ts';
const coordinatorShared = ['changes.ts', 'coordinator-client.ts', 'outcome.ts'];

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

const coordinator = join(src, 'coordinator');
const roomLayerOf = new Map(coordinatorRooms.flatMap((rooms, index) => rooms.map((room) => [room, index] as const)));

/** Where a path lies in src/coordinator/: its room, `top` for the files at its top, undefined outside it. */
function roomOf(path: string): string | undefined {
  const parts = relative(coordinator, path).split('/');
  if (parts[0] === '..' || parts[0] === '') return undefined;
  return parts.length > 1 ? parts[0] : 'top';
}

const coordinatorImports = files.flatMap((file) =>
  valueImports(file).map((specifier) => {
    const target = moduleFile(resolve(dirname(file), specifier));
    return { file: relative(src, file), from: roomOf(file), to: roomOf(target), target: relative(coordinator, target), specifier };
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

describe('the rooms of src/coordinator/', () => {
  it('places every room in a layer', () => {
    const rooms = readdirSync(coordinator).filter((name) => statSync(join(coordinator, name)).isDirectory());
    expect(rooms.filter((room) => !roomLayerOf.has(room))).toEqual([]);
  });

  it('keeps at its top only the class and the files every room shares', () => {
    const top = readdirSync(coordinator).filter((name) => statSync(join(coordinator, name)).isFile());
    expect(top.sort()).toEqual([coordinatorClass, ...coordinatorShared].sort());
  });

  it('imports values only from lower rooms, so no two rooms import each other', () => {
    const upward = coordinatorImports.filter(
      ({ from, to }) => from !== undefined && from !== 'top' && to !== undefined && to !== 'top' && from !== to && roomLayerOf.get(to)! >= roomLayerOf.get(from)!,
    );
    expect(upward.map(({ file, specifier }) => `${file} imports ${specifier}`)).toEqual([]);
  });

  it('lets only the class import the rooms, and nothing import the class', () => {
    const wrong = coordinatorImports.filter(
      ({ file, from, to, target }) =>
        (from === 'top' && to !== 'top' && to !== undefined && file !== `coordinator/${coordinatorClass}`) || (target === coordinatorClass && file !== 'index.ts'),
    );
    expect(wrong.map(({ file, specifier }) => `${file} imports ${specifier}`)).toEqual([]);
  });
});
