import { maxPathLength } from '../http/path-length';
import { type TemplateExpression, type TemplatePart, expressionsOf, fieldValueParts, isTemplated, parseTemplate } from './template-parts';

/**
 * The most bytes a rule's header fields, or a redirect's `Location`, can take in one response,
 * counted at configuration time so that no request can make them larger.
 *
 * A variable expands what the request path held, and the path is at most `maxPathLength`
 * bytes; its variables share those bytes. Expansion percent-encodes a character at most three
 * times as long as the path wrote it (`:` becomes `%3A`); a named list (`{;tag*}`) repeats the
 * name for each item, and the path holds at most one item per byte. So an expansion costs
 * `maxPathLength` times the largest weight any one variable has (its occurrences' factors
 * added up), besides the text written around it.
 */
const encodingFactor = 3;

/** The bytes text takes in a field (UTF-8). */
const utf8 = new TextEncoder();
function bytesOf(text: string): number {
  return utf8.encode(text).length;
}

/** The most bytes the expressions can expand to, given the variables the path can give. */
function expansionBytes(expressions: readonly TemplateExpression[], variables: ReadonlySet<string>): number {
  const weights = new Map<string, number>();
  let written = 0;
  for (const { operator, variables: used } of expressions) {
    written += 1;
    for (const { name, explode } of used) {
      if (!variables.has(name)) continue;
      const named = operator === ';' || operator === '?' || operator === '&';
      // The separator before it, and its `name=` once.
      written += 1 + (named ? name.length + 1 : 0);
      const perByte = encodingFactor + (named && explode ? name.length + 2 : 0);
      weights.set(name, (weights.get(name) ?? 0) + perByte);
    }
  }
  return written + maxPathLength * Math.max(0, ...weights.values());
}

/** The variables a URI template matched against the path reads. */
function variablesOf(template: string | undefined): ReadonlySet<string> {
  return new Set(template === undefined ? [] : expressionsOf(parseTemplate(template)).flatMap(({ variables }) => variables.map(({ name }) => name)));
}

interface HeaderRule {
  uri?: string;
  fields: Record<string, string | string[]>;
}

/** One header rule's fields at their longest: `name: value` and a line end for each value. */
function ruleBytes({ uri, fields }: HeaderRule): number {
  const variables = variablesOf(uri);
  const expressions: TemplateExpression[] = [];
  let written = 0;
  for (const [name, value] of Object.entries(fields)) {
    for (const text of Array.isArray(value) ? value : [value]) {
      const parts: TemplatePart[] = fieldValueParts(text, variables);
      written += bytesOf(name) + 4;
      for (const part of parts) {
        if (typeof part === 'string') written += bytesOf(part);
        else expressions.push(part);
      }
    }
  }
  return written + (expressions.length > 0 ? expansionBytes(expressions, variables) : 0);
}

/**
 * The most bytes of header fields the rules can add to one response: the rules for every
 * path and the templated ones may all apply to one request, rules for plain paths only to
 * requests for that path.
 */
export function headerRulesBytes(rules: readonly HeaderRule[]): number {
  let anyPath = 0;
  const byPath = new Map<string, number>();
  for (const rule of rules) {
    const bytes = ruleBytes(rule);
    if (rule.uri === undefined || isTemplated(rule.uri)) anyPath += bytes;
    else byPath.set(rule.uri, (byPath.get(rule.uri) ?? 0) + bytes);
  }
  return anyPath + Math.max(0, ...byPath.values());
}

/**
 * The most bytes a redirect's `Location` can take: its target's text, percent-encoded where
 * it is not ASCII (three bytes for each byte), and the variables of `from` it expands.
 */
export function locationBytes(from: string, to: string): number {
  const parts = parseTemplate(to);
  const text = parts.filter((part): part is string => typeof part === 'string').reduce((bytes, part) => bytes + encodingFactor * bytesOf(part), 0);
  return text + expansionBytes(expressionsOf(parts), variablesOf(from));
}
