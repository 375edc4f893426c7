/**
 * The problem types the documentation names are the ones the service answers: every
 * `/problems/<kind>` in README.md, CONTRIBUTING.md and docs/*.md is a kind of src/http/problem.ts,
 * and every kind is documented in docs/api.md ("Problem types").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { markdownFiles, repo } from './markdown';

/** The member names of the `kinds` object in a problem.ts source, read with TypeScript's parser. */
export function problemKinds(source: string): string[] {
  const file = ts.createSourceFile('problem.ts', source, ts.ScriptTarget.Latest);
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || declaration.name.text !== 'kinds' || !declaration.initializer) continue;
      let object: ts.Expression = declaration.initializer;
      while (ts.isSatisfiesExpression(object) || ts.isAsExpression(object)) object = object.expression;
      if (!ts.isObjectLiteralExpression(object)) break;
      return object.properties.flatMap((property) =>
        property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)) ? [property.name.text] : [],
      );
    }
  }
  throw new Error('problem.ts declares no `kinds` object');
}

/** The problem types a text names, as `/problems/<kind>`. */
export function namedProblemTypes(text: string): string[] {
  return [...new Set([...text.matchAll(/\/problems\/([a-z][a-z0-9-]*)/g)].map(([, kind]) => kind!))];
}

const kinds = problemKinds(readFileSync(join(repo, 'src/http/problem.ts'), 'utf8'));

describe('problem types in the documentation', () => {
  it('reads the kinds of src/http/problem.ts', () => {
    expect(kinds).toContain('rate-limited');
    expect(kinds).toContain('invalid-domain');
  });

  it.each(markdownFiles)('names in %s only types the service answers', (file) => {
    const unknown = namedProblemTypes(readFileSync(join(repo, file), 'utf8')).filter((kind) => !kinds.includes(kind));
    expect(unknown).toEqual([]);
  });

  it('documents every kind in docs/api.md', () => {
    const documented = namedProblemTypes(readFileSync(join(repo, 'docs/api.md'), 'utf8'));
    expect(kinds.filter((kind) => !documented.includes(kind))).toEqual([]);
  });

  it('finds a type no kind answers', () => {
    const text = 'A deploy past it is a **429** `/problems/too-many-requests`; `/problems/<kind>` is the form.';
    expect(namedProblemTypes(text).filter((kind) => !kinds.includes(kind))).toEqual(['too-many-requests']);
  });
});
