/**
 * The SQL statements the Worker prepares on D1, read from its source (src/): the first argument
 * of every `.prepare(…)` call that is a string, or a template whose every part is a string or a
 * `const` of the same file that is one. The rest (built by a function, or from another module)
 * are counted apart, as `unresolved`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface Statement {
  /** Where the call is: `src/storage/sites-table.ts:117`. */
  at: string;
  sql: string;
}

/** Every module-level `const` of `file` that has an initializer, by name. */
function constants(file: ts.SourceFile): Map<string, ts.Expression> {
  const found = new Map<string, ts.Expression>();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.initializer) found.set(declaration.name.text, declaration.initializer);
    }
  }
  return found;
}

/** The string `node` always is, or undefined when that takes running code. */
function evaluate(node: ts.Expression, known: Map<string, ts.Expression>): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return evaluate(node.expression, known);
  if (ts.isIdentifier(node)) {
    const initializer = known.get(node.text);
    return initializer === undefined ? undefined : evaluate(initializer, known);
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const [left, right] = [evaluate(node.left, known), evaluate(node.right, known)];
    return left === undefined || right === undefined ? undefined : left + right;
  }
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) {
      const value = evaluate(span.expression, known);
      if (value === undefined) return undefined;
      text += value + span.literal.text;
    }
    return text;
  }
  return undefined;
}

export function workerStatements(repo: string): { statements: Statement[]; unresolved: string[] } {
  const statements: Statement[] = [];
  const unresolved: string[] = [];
  const sources = readdirSync(join(repo, 'src'), { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'));
  for (const path of sources) {
    const file = ts.createSourceFile(path, readFileSync(join(repo, 'src', path), 'utf8'), ts.ScriptTarget.Latest, true);
    const known = constants(file);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'prepare' && node.arguments.length === 1) {
        const at = `${relative(repo, join(repo, 'src', path))}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        const sql = evaluate(node.arguments[0]!, known);
        if (sql === undefined) unresolved.push(at);
        else statements.push({ at, sql });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return { statements, unresolved };
}
