import { basicAuthFault, basicAuthPairs } from '../protection/basic-auth';
import { configurationLimits } from './configuration-limits';
import { headerRulesBytes } from './header-bytes';
import { fieldNameFault, fieldValueFault } from './header-fields';
import { type FileHeaderRule, patternTemplate, readRuleLines, rulesFileLimits, rulesFileProblem, headerValueTemplate } from './rules-files';

/**
 * Reads a `_headers` file in the syntax of Netlify and Cloudflare Pages: a path pattern (`*`,
 * `:placeholders`) on a line of its own, then its `Name: value` lines (indented by custom, not
 * by rule) and `! Name` lines that detach a field an earlier rule set. Written by hand for the
 * reasons given in ./redirects-file.ts; Netlify's parser is its reference in the tests.
 */
export function parseHeadersFile(text: string): FileHeaderRule[] {
  const rules: (FileHeaderRule & { variables: Set<string>; line: number })[] = [];
  readRuleLines('_headers', text, ({ text: line, number }) => {
    const fail = (why: string) => rulesFileProblem('_headers', number, why);
    if (line.startsWith('/')) {
      if (rules.length >= rulesFileLimits.MAX_HEADERS_FILE_RULES) {
        throw rulesFileProblem('_headers', number, `more than ${rulesFileLimits.MAX_HEADERS_FILE_RULES} path rules.`, 'MAX_HEADERS_FILE_RULES');
      }
      const names: string[] = [];
      const template = /[?#]/.test(line) ? 'a path rule matches paths only: a query or fragment ("?", "#") never reaches it.' : patternTemplate(line, names);
      const tooMany = names.length > configurationLimits.MAX_TEMPLATE_VARIABLES;
      // A refused path still gathers its header lines, read for their own faults, so they are not blamed on it.
      rules.push({ uri: typeof template === 'string' || tooMany ? '' : template[0]!, fields: {}, detach: [], variables: new Set(names), line: number });
      if (typeof template === 'string') throw fail(template);
      if (tooMany) throw fail(`the path has ${names.length} placeholders; at most ${configurationLimits.MAX_TEMPLATE_VARIABLES} are allowed.`);
      return;
    }
    if (/^https?:\/\//i.test(line)) throw fail('rules for other hosts are not supported: a rule starts with a path ("/…").');
    const rule = rules.at(-1);
    if (!rule) throw fail('a path ("/…") comes before its header lines.');
    if (line.startsWith('!')) {
      rule.detach.push(fieldName(line.slice(1).trim(), fail));
      return;
    }
    const colon = line.indexOf(':');
    if (colon === -1) throw fail('expected "Name: value", "! Name" or a path.');
    const written = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (written.toLowerCase() === basicAuthField) {
      readBasicAuth(rule, value, rules, number);
      return;
    }
    const name = fieldName(written, fail);
    if (value === '') throw fail(`the header "${name}" has no value.`);
    const valueFault = fieldValueFault(name, value);
    if (valueFault) throw fail(valueFault);
    // One field whatever the letter case of its name, as Cloudflare's and Netlify's parsers read it.
    const field = Object.keys(rule.fields).find((key) => key.toLowerCase() === name.toLowerCase()) ?? name;
    (rule.fields[field] ??= []).push(headerValueTemplate(value, rule.variables));
  });
  checkHeaderBytes(rules);
  return rules.map(({ uri, fields, detach, basicAuth }) => ({ uri, fields, detach, ...(basicAuth ? { basicAuth } : {}) }));
}

/** Netlify's password protection of the rule's paths: kept apart from the fields, never sent, hashed before it is stored. */
const basicAuthField = 'basic-auth';

function readBasicAuth(rule: FileHeaderRule, value: string, rules: readonly FileHeaderRule[], line: number): void {
  const fault = basicAuthFault(value);
  if (fault) throw rulesFileProblem('_headers', line, fault);
  const pairs = basicAuthPairs(value);
  const limit = rulesFileLimits.MAX_BASIC_AUTH_CREDENTIALS;
  if (rules.reduce((count, { basicAuth }) => count + (basicAuth?.length ?? 0), 0) + pairs.length > limit) {
    throw rulesFileProblem('_headers', line, `more than ${limit} Basic-Auth user names and passwords.`, 'MAX_BASIC_AUTH_CREDENTIALS');
  }
  rule.basicAuth = [...(rule.basicAuth ?? []), ...pairs];
}

function fieldName(name: string, fail: (why: string) => Error): string {
  const fault = fieldNameFault(name);
  if (fault) throw fail(fault);
  return name;
}

/** Refuses rules that can add more than MAX_HEADER_BYTES to one response, naming the rule that goes over. */
function checkHeaderBytes(rules: readonly (FileHeaderRule & { line: number })[]): void {
  const limit = configurationLimits.MAX_HEADER_BYTES;
  if (headerRulesBytes(rules) <= limit) return;
  const over = rules.findIndex((_, at) => headerRulesBytes(rules.slice(0, at + 1)) > limit);
  throw rulesFileProblem('_headers', rules[over]!.line, `with this rule the rules can add more than ${limit} bytes to one response, placeholders at their longest.`);
}
