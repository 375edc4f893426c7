/**
 * One rule for the header fields a site sets: the host schema's patterns say what
 * src/rules/header-fields.ts says, for `_headers` and host options alike.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateHostConfiguration } from '../../src/configuration/host-schema';
import { fieldNameFault, fieldValueCharacters, fieldValueFault, mergedFields, mergedVary, refusedFieldNames } from '../../src/rules/header-fields';
import { parseHeadersFile } from '../../src/rules/headers-file';
import { hostOptionsOf } from '../../src/serving/host-options';

const root = join(import.meta.dirname, '../..');
const hostSchema = JSON.parse(readFileSync(join(root, 'schema/host.schema.json'), 'utf8'));
const openapi = JSON.parse(readFileSync(join(root, 'schema/openapi.json'), 'utf8'));

/** The schema's pattern for the refused names, as written out from the list: each letter in either case. */
function refusedNamesPattern(names: readonly string[]): string {
  const either = (name: string) => name.replace(/[a-z]/g, (letter) => `[${letter.toUpperCase()}${letter}]`);
  return `^(?:${names.map(either).join('|')})$`;
}

describe('the names and values a site may set', () => {
  const fields = hostSchema.properties.headers.items.properties.fields;
  const openapiFields = openapi.components.schemas.HostOptions.properties.headers.items.properties.fields;

  it('refuses in the host schema (and its copy in the OpenAPI document) exactly the names the rules files refuse', () => {
    expect(fields.propertyNames.not.pattern).toBe(refusedNamesPattern(refusedFieldNames));
    expect(openapiFields.propertyNames.not.pattern).toBe(fields.propertyNames.not.pattern);
    for (const name of refusedFieldNames) expect(fieldNameFault(name.toUpperCase())).toBeDefined();
  });

  it('allows in the host schema exactly the value characters the rules files allow', () => {
    expect(hostSchema.$defs.fieldValue.pattern).toBe(fieldValueCharacters.source.replace('\\x20-\\x7e', '\\u0020-\\u007E'));
    expect(openapi.components.schemas.HostOptions.$defs.fieldValue.pattern).toBe(hostSchema.$defs.fieldValue.pattern);
  });

  it.each([['Content-Length'], ['connection'], ['HOST']])('refuses %s from a _headers file and from host options', (name) => {
    expect(() => parseHeadersFile(`/*\n  ${name}: x`)).toThrow();
    expect(validateHostConfiguration({ headers: [{ fields: { [name]: 'x' } }] })).not.toEqual([]);
  });

  it('reads Basic-Auth from a _headers file as protection, and refuses it from host options, which are shown whole', () => {
    expect(parseHeadersFile('/*\n  Basic-Auth: a:b')[0]).toMatchObject({ fields: {}, basicAuth: [{ user: 'a', password: 'b' }] });
    expect(validateHostConfiguration({ headers: [{ fields: { 'Basic-Auth': 'a:b' } }] })).not.toEqual([]);
    expect(fieldNameFault('basic-auth')).toMatch(/_headers file only/);
  });

  it.each([['café'], ['a\u0080b'], ['zero\u200bwidth']])('refuses the value %j from a _headers file and from host options', (value) => {
    expect(fieldValueFault('X-A', value)).toBeDefined();
    expect(() => parseHeadersFile(`/*\n  X-A: ${value}`)).toThrow(/X-A/);
    expect(validateHostConfiguration({ headers: [{ fields: { 'X-A': value } }] })).not.toEqual([]);
  });

  it('leaves out, when serving, what a host configuration stored before the schema refused it sets', () => {
    const host = hostOptionsOf({ headers: [{ fields: { 'Content-Length': '1', 'X-A': 'a', 'x-a': 'b' } }] });
    const [match] = host.headers.all({ segments: [], directory: true, normal: true });
    expect(match!.rule.fields.map(([name, values]) => [name, values.map((value) => value({}))])).toEqual([['X-A', ['a', 'b']]]);
  });

  it('merges names whatever their case, in the order first written', () => {
    expect(mergedFields([['Cache-Control', ['a']], ['X-A', ['1']], ['cache-control', ['b']]])).toEqual([['Cache-Control', ['a', 'b']], ['X-A', ['1']]]);
    expect(parseHeadersFile('/*\n  Cache-Control: a\n  cache-control: b')).toEqual([{ uri: '/{+splat}', fields: { 'Cache-Control': ['a', 'b'] }, detach: [] }]);
    expect(mergedVary('Origin, accept-encoding', 'Accept-Encoding', 'Accept-Language')).toBe('Origin, accept-encoding, Accept-Language');
  });
});
