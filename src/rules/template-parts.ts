/** Whether a URI template has an expression: one without is a plain path, matched by exact key. */
export function isTemplated(source: string): boolean {
  return source.includes('{');
}

/** The operators of RFC 6570 (§3.2), '' for a simple `{name}`. */
export type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

export interface TemplateVariable {
  /** As written: `{a%20b}` is named `a%20b`, as expansion looks it up. */
  name: string;
  /** `{name*}`: a list, its items joined by the operator's separator. */
  explode: boolean;
  /** `{name:3}`: expansion keeps this many characters of a string value. */
  maxLength?: number;
}

export interface TemplateExpression {
  operator: Operator;
  variables: TemplateVariable[];
  /** The expression as written, braces included. */
  source: string;
}

/** A template as the literal text and the expressions it alternates. */
export type TemplatePart = string | TemplateExpression;

const operators = new Set<string>(['+', '#', '.', '/', ';', '?', '&']);
const variableSpec = /^([^:*]+)(?::([1-9][0-9]{0,3})|(\*))?$/;

/**
 * The parts of a URI template, literals and expressions in order (adjacent literals joined).
 * An expression that does not parse (`{`, `{a:0}`) stays literal text: the host schema refuses
 * such templates, and a manifest file's, which no schema checks, then simply match nothing.
 */
export function parseTemplate(source: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = '';
  let at = 0;
  while (at < source.length) {
    const open = source.indexOf('{', at);
    const close = open === -1 ? -1 : source.indexOf('}', open);
    const expression = close === -1 ? undefined : parseExpression(source.slice(open, close + 1));
    if (!expression) {
      literal += source.slice(at, open === -1 ? source.length : open + 1);
      at = open === -1 ? source.length : open + 1;
      continue;
    }
    literal += source.slice(at, open);
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push(expression);
    at = close + 1;
  }
  if (literal !== '') parts.push(literal);
  return parts;
}

function parseExpression(source: string): TemplateExpression | undefined {
  let body = source.slice(1, -1);
  const operator = (operators.has(body.charAt(0)) ? body.charAt(0) : '') as Operator;
  body = body.slice(operator.length);
  const variables: TemplateVariable[] = [];
  for (const spec of body.split(',')) {
    const parsed = variableSpec.exec(spec);
    if (!parsed || /[{}]/.test(spec)) return undefined;
    const [, name = '', maxLength, explode] = parsed;
    variables.push({ name, explode: explode !== undefined, ...(maxLength ? { maxLength: Number(maxLength) } : {}) });
  }
  return { operator, variables, source };
}

/** The expressions of a template. */
export function expressionsOf(parts: readonly TemplatePart[]): TemplateExpression[] {
  return parts.filter((part): part is TemplateExpression => typeof part !== 'string');
}

/** An expression of RFC 6570 as templates write it, found in free text such as a header field value. */
const expressionPattern = /\{[+#./;?&]?[A-Za-z0-9_.%]+(?::[1-9][0-9]{0,3}|\*)?(?:,[A-Za-z0-9_.%]+(?::[1-9][0-9]{0,3}|\*)?)*\}/g;

/**
 * A header field value cut into literal text and the expressions that expand the variables of
 * its rule's URI template (`"X-Asset": "{file}"`). Expressions naming other variables stay text,
 * so values that merely contain braces (a JSON `Report-To`) are sent as written.
 */
export function fieldValueParts(value: string, variables: ReadonlySet<string>): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const found of value.matchAll(expressionPattern)) {
    const expression = parseExpression(found[0]);
    if (!expression || !expression.variables.every(({ name }) => variables.has(name))) continue;
    if (found.index > last) parts.push(value.slice(last, found.index));
    parts.push(expression);
    last = found.index + found[0].length;
  }
  if (last < value.length) parts.push(value.slice(last));
  return parts;
}
