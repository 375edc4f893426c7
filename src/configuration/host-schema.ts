// One file over 250 lines: wording the validator's output needs the schema's own layout (keyword locations, titles), so validating and wording stay together.
import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import schema from '../../schema/host.schema.json';

/** One schema violation: a JSON Pointer (RFC 6901) into the configuration and a readable message. */
export interface HostConfigurationError {
  pointer: string;
  message: string;
}

const hostSchema = schema as unknown as Schema;
// shortCircuit off: every violation is reported, not just the first one.
const validator = new Validator(hostSchema, '2020-12', false);

/** Keywords whose errors only say that something below them failed. */
const WRAPPERS = new Set([
  '$ref',
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'allOf',
  'anyOf',
  'oneOf',
  'if',
  'dependentSchemas',
  'dependencies',
  'false',
]);
const ALTERNATIVES = new Set(['anyOf', 'oneOf']);

/**
 * Validates host options against `schema/host.schema.json`. Returns the most specific
 * violations (empty when valid), each with a JSON Pointer into `value`.
 */
export function validateHostConfiguration(value: unknown): HostConfigurationError[] {
  const unusable = findUnusableValues(value, '');
  if (unusable.length > 0) return unusable;
  const result = validator.validate(value);
  if (result.valid) return [];
  return describe(result.errors, value);
}

// ---------------------------------------------------------------------------------------------
// Values the validator cannot take: non-JSON values, and keys that are not valid Unicode (the
// validator percent-encodes keys into locations, which throws on lone surrogates).

const LONE_SURROGATE = /\p{Surrogate}/u;

function findUnusableValues(value: unknown, pointer: string): HostConfigurationError[] {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return [];
    case 'number':
      return Number.isFinite(value) ? [] : [{ pointer, message: 'must be a finite number' }];
    case 'object': {
      if (value === null) return [];
      const errors: HostConfigurationError[] = [];
      if (Array.isArray(value)) {
        value.forEach((item, index) => errors.push(...findUnusableValues(item, `${pointer}/${index}`)));
        return errors;
      }
      for (const [key, item] of Object.entries(value)) {
        const child = `${pointer}/${escapeToken(key)}`;
        if (LONE_SURROGATE.test(key)) {
          errors.push({ pointer: child, message: 'property name is not valid Unicode (lone surrogate)' });
        } else {
          errors.push(...findUnusableValues(item, child));
        }
      }
      return errors;
    }
    default:
      return [{ pointer, message: `must be a JSON value, not ${typeof value}` }];
  }
}

// ---------------------------------------------------------------------------------------------
// Turning @cfworker/json-schema output units into pointer + message pairs.

interface Leaf {
  pointer: string;
  keywordLocation: string;
  keyword: string;
  /** Set for unknown properties: the offending property name. */
  property?: string;
  raw: string;
}

function describe(units: OutputUnit[], instance: unknown): HostConfigurationError[] {
  // 1. Leaves: errors that are not mere wrappers. An `additionalProperties` wrapper is followed
  //    by the error of the `false` schema at the property itself; the pair becomes one leaf.
  const leaves: Leaf[] = [];
  units.forEach((unit, index) => {
    if (unit.keyword === 'additionalProperties') {
      const next = units[index + 1];
      const pointer = next ? toPointer(next.instanceLocation) : toPointer(unit.instanceLocation);
      leaves.push({
        pointer,
        keywordLocation: unit.keywordLocation,
        keyword: 'additionalProperties',
        property: lastToken(pointer),
        raw: unit.error,
      });
    } else if (!WRAPPERS.has(unit.keyword)) {
      leaves.push({
        pointer: toPointer(unit.instanceLocation),
        keywordLocation: unit.keywordLocation,
        keyword: unit.keyword,
        raw: unit.error,
      });
    }
  });

  //    A oneOf without errors below it failed because several of its branches matched.
  for (const unit of units) {
    if (unit.keyword !== 'oneOf') continue;
    const base = `${unit.keywordLocation}/`;
    if (leaves.some((leaf) => leaf.keywordLocation.startsWith(base))) continue;
    leaves.push({
      pointer: toPointer(unit.instanceLocation),
      keywordLocation: unit.keywordLocation,
      keyword: 'oneOfOverlap',
      raw: unit.error,
    });
  }

  // 2. In failed alternatives (anyOf / oneOf) keep only the branches that got deepest into the
  //    instance: a branch of the right type says more than "must be a string".
  const alternatives = units
    .filter((unit) => ALTERNATIVES.has(unit.keyword))
    .sort((a, b) => a.keywordLocation.length - b.keywordLocation.length);
  const discarded: string[] = [];
  const isDiscarded = (location: string) => discarded.some((prefix) => location.startsWith(`${prefix}/`) || location === prefix);
  for (const unit of alternatives) {
    if (isDiscarded(unit.keywordLocation)) continue;
    const base = `${unit.keywordLocation}/`;
    const branches = new Map<string, number>();
    for (const leaf of leaves) {
      if (!leaf.keywordLocation.startsWith(base) || isDiscarded(leaf.keywordLocation)) continue;
      const branch = leaf.keywordLocation.slice(base.length).split('/')[0] ?? '';
      branches.set(branch, Math.max(branches.get(branch) ?? 0, depth(leaf.pointer)));
    }
    if (branches.size === 0) continue;
    const deepest = Math.max(...branches.values());
    for (const [branch, branchDepth] of branches) {
      if (branchDepth < deepest) discarded.push(`${base}${branch}`);
    }
  }
  const kept = leaves.filter((leaf) => !isDiscarded(leaf.keywordLocation));

  // 3. Group the leaves of one alternative at one location, so that "must be a string" and
  //    "must be an object" read as "must be a string or an object".
  const errors: HostConfigurationError[] = [];
  const groups = new Map<string, Leaf[]>();
  for (const leaf of kept) {
    const owner = alternatives.find(
      (unit) =>
        toPointer(unit.instanceLocation) === leaf.pointer && leaf.keywordLocation.startsWith(`${unit.keywordLocation}/`),
    );
    const key = owner ? `${leaf.pointer}\u0000${owner.keywordLocation}` : `leaf\u0000${groups.size}`;
    const group = groups.get(key);
    if (group) group.push(leaf);
    else groups.set(key, [leaf]);
  }
  for (const group of groups.values()) {
    errors.push({ pointer: group[0]!.pointer, message: groupMessage(group, instance) });
  }

  // 4. Without the fine print, a wrapper is better than nothing.
  if (errors.length === 0) {
    for (const unit of units) errors.push({ pointer: toPointer(unit.instanceLocation), message: unit.error });
  }
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = `${error.pointer}\u0000${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function groupMessage(group: Leaf[], instance: unknown): string {
  if (group.length === 1) return leafMessage(group[0]!, instance);
  if (group.every((leaf) => leaf.keyword === 'required')) {
    const names = unique(group.flatMap((leaf) => missingProperties(leaf, instance)));
    return `must have the property ${orList(names.map(quote))}`;
  }
  // Alternatives: collect what each branch expected.
  const expected: string[] = [];
  for (const leaf of group) {
    const phrase = expectation(leaf, schemaAt(parentLocation(leaf.keywordLocation)), instance);
    if (phrase) expected.push(phrase);
  }
  // "(got a string)" helps only when no alternative accepted the type of the value.
  const onlyTypes = group.every((leaf) => leaf.keyword === 'type');
  const got = onlyTypes ? ` (got ${jsonType(valueAt(instance, group[0]!.pointer))})` : '';
  return `must be ${orList(unique(expected))}${got}`;
}

function leafMessage(leaf: Leaf, instance: unknown): string {
  const node = schemaAt(parentLocation(leaf.keywordLocation));
  switch (leaf.keyword) {
    case 'additionalProperties': {
      const allowed = Object.keys(asRecord(node?.properties));
      const patterns = Object.keys(asRecord(node?.patternProperties));
      const hints = [
        ...(allowed.length > 0 ? [`one of ${allowed.map(quote).join(', ')}`] : []),
        ...patterns.map((pattern) => `a name matching ${pattern}`),
      ];
      return `unknown property ${quote(leaf.property ?? '')}${hints.length > 0 ? `; expected ${orList(hints)}` : ''}`;
    }
    case 'required': {
      const names = missingProperties(leaf, instance);
      return names.length > 1 ? `missing the properties ${names.map(quote).join(', ')}` : `missing the property ${quote(names[0] ?? '')}`;
    }
    case 'type':
      return `must be ${orList(typeNames(node?.type))} (got ${jsonType(valueAt(instance, leaf.pointer))})`;
    case 'oneOfOverlap': {
      const title = typeof node?.title === 'string' ? node.title : undefined;
      return title ? `must be ${title}; it matches more than one alternative` : 'matches more than one alternative';
    }
    case 'not': {
      const title = typeof node?.title === 'string' ? node.title : undefined;
      return title ? `is not allowed: ${title}` : 'is not allowed';
    }
    default: {
      const phrase = expectation(leaf, node, instance);
      return phrase ? `must be ${phrase}` : leaf.raw;
    }
  }
}

/** What a failed keyword expected, as a noun phrase ("an RFC 6570 URI template"). */
function expectation(leaf: Leaf, node: Schema | undefined, instance: unknown): string | undefined {
  switch (leaf.keyword) {
    case 'type':
      return orList(typeNames(node?.type));
    case 'pattern':
      return typeof node?.title === 'string' ? node.title : `a string matching ${String(node?.pattern)}`;
    case 'enum':
      return Array.isArray(node?.enum) ? `one of ${node.enum.map((v) => JSON.stringify(v)).join(', ')}` : undefined;
    case 'const':
      return JSON.stringify(node?.const);
    case 'minimum':
      return `at least ${String(node?.minimum)}`;
    case 'maximum':
      return `at most ${String(node?.maximum)}`;
    case 'minLength':
      return node?.minLength === 1 ? 'a non-empty string' : `at least ${String(node?.minLength)} characters long`;
    case 'maxLength':
      return `at most ${String(node?.maxLength)} characters long`;
    case 'minItems':
      return node?.minItems === 1 ? 'a non-empty array' : `an array of at least ${String(node?.minItems)} items`;
    case 'maxItems':
      return `an array of at most ${String(node?.maxItems)} items`;
    case 'uniqueItems':
      return 'an array without duplicate items';
    case 'required': {
      const names = missingProperties(leaf, instance);
      return `an object with the property ${orList(names.map(quote))}`;
    }
    default:
      return undefined;
  }
}

function missingProperties(leaf: Leaf, instance: unknown): string[] {
  const node = schemaAt(parentLocation(leaf.keywordLocation));
  const value = valueAt(instance, leaf.pointer);
  const present = value !== null && typeof value === 'object' ? Object.keys(value) : [];
  const required = Array.isArray(node?.required) ? (node.required as string[]) : [];
  const missing = required.filter((name) => !present.includes(name));
  return missing.length > 0 ? missing : required;
}

// ---------------------------------------------------------------------------------------------
// Locations.

/** `#/a/b%20c` (the validator's URI-fragment form) to the JSON Pointer `/a/b c`. */
function toPointer(location: string): string {
  const fragment = location.startsWith('#') ? location.slice(1) : location;
  if (fragment === '') return '';
  return fragment
    .split('/')
    .map((token) => safeDecode(token))
    .join('/');
}

function safeDecode(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function lastToken(pointer: string): string {
  return unescapeToken(pointer.slice(pointer.lastIndexOf('/') + 1));
}

function depth(pointer: string): number {
  return pointer === '' ? 0 : pointer.split('/').length - 1;
}

function parentLocation(keywordLocation: string): string {
  return keywordLocation.slice(0, keywordLocation.lastIndexOf('/'));
}

function valueAt(instance: unknown, pointer: string): unknown {
  if (pointer === '') return instance;
  let value: unknown = instance;
  for (const token of pointer.slice(1).split('/')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[unescapeToken(token)];
  }
  return value;
}

/**
 * The schema object at a keyword location of the validator's output. Such a location is the
 * path the validator took, so `$ref` steps are followed (all references are local).
 */
function schemaAt(keywordLocation: string): Schema | undefined {
  const fragment = keywordLocation.startsWith('#') ? keywordLocation.slice(1) : keywordLocation;
  let node: unknown = hostSchema;
  if (fragment === '') return node as Schema;
  for (const raw of fragment.slice(1).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    const token = unescapeToken(safeDecode(raw));
    if (token === '$ref') {
      const ref = (node as Schema).$ref;
      if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
      node = schemaAt(ref);
    } else {
      node = (node as Record<string, unknown>)[token];
    }
  }
  return node !== null && typeof node === 'object' ? (node as Schema) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Words.

function typeNames(type: unknown): string[] {
  const types = Array.isArray(type) ? type : typeof type === 'string' ? [type] : [];
  return types.map((name) => (name === 'null' ? 'null' : `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`));
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function orList(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

function quote(text: string): string {
  return JSON.stringify(text);
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
