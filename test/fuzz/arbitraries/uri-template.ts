import fc from 'fast-check';
import { configurationLimits } from '../../../src/rules/configuration-limits';
import { maxPathLength } from '../../../src/http/path-length';

/** Characters paths and templates share, the operators' own separators among them. */
const pathCharacters = ['a', 'b', 'x', '-', '.', '/', '_', ',', ';', '=', '&', ':', '~', '%20', 'é', '%3F', '%23'];
/** Characters that never stand for an operator or a separator. */
export const plainCharacters = ['a', 'b', 'x', '-', '.', '/', '_', '~', '%20', 'é'];

const literal = fc.array(fc.constantFrom(...pathCharacters.filter((char) => char.length === 1 || char.startsWith('%2')), '%2F'), { minLength: 1, maxLength: 6 }).map((chars) => chars.join(''));
const variable = fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.constantFrom('', '', '', '*', ':1', ':2')).map(([name, modifier]) => name + modifier);
const expression = fc
  .tuple(fc.constantFrom('', '', '+', '#', '.', '/', '/', ';', '?', '&'), fc.array(variable, { minLength: 1, maxLength: 3 }))
  .map(([operator, variables]) => `{${operator}${variables.join(',')}}`);

/** A short URI template of any RFC 6570 kind, variables named more than once included. */
export const shortTemplate = fc.array(fc.oneof(literal, expression, expression), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));

/**
 * A template as long as the limits allow: a short one repeated up to `MAX_TEMPLATE_LENGTH`
 * characters, cut to `MAX_TEMPLATE_VARIABLES` variables.
 */
export const longTemplate = fc.tuple(fc.array(fc.oneof(literal, expression), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 400 })).map(([parts, times]) => {
  let template = '';
  let variables = 0;
  for (let round = 0; round < times; round += 1) {
    for (const part of parts) {
      const count = part.startsWith('{') ? part.split(',').length : 0;
      if (template.length + part.length > configurationLimits.MAX_TEMPLATE_LENGTH) return template || part;
      if (variables + count > configurationLimits.MAX_TEMPLATE_VARIABLES) continue;
      template += part;
      variables += count;
    }
  }
  return template;
});

const item = (characters: readonly string[]) => fc.array(fc.constantFrom(...characters), { maxLength: 4 }).map((chars) => chars.join(''));
const value = (characters: readonly string[]) => fc.oneof(item(characters), fc.array(item(characters), { minLength: 1, maxLength: 3 }), fc.constant(undefined));

/** Values for the variables `shortTemplate` names, from the given characters. */
export const templateValues = (characters: readonly string[] = pathCharacters) =>
  fc.record({ a: value(characters), b: value(characters), c: value(characters), d: value(characters) });

/** A short path of path characters. */
export const shortPath = fc.array(fc.constantFrom(...pathCharacters), { maxLength: 12 }).map((chars) => `/${chars.join('')}`);

/** A path of `maxPathLength` bytes: a short run of path characters repeated. */
export const longPath = fc.array(fc.constantFrom(...pathCharacters.filter((char) => /^[\x21-\x7e]$/.test(char))), { minLength: 1, maxLength: 6 }).map((chars) => {
  const unit = chars.join('');
  return `/${unit.repeat(Math.ceil(maxPathLength / unit.length))}`.slice(0, maxPathLength);
});
