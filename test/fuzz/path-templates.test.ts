import fc from 'fast-check';
import uriTemplate, { type TemplateValues } from 'uri-templates';
import { describe, expect, it } from 'vitest';
import { checkHostConfiguration } from '../../src/configuration/parse';
import { hostOptionsOf } from '../../src/serving/host-options';
import { pathTemplate } from '../../src/rules/path-template';
import { type RequestPath, decodedPath, formattedPath, parseRequestPath } from '../../src/http/request-path';
import { TemplateMatcher } from '../../src/rules/template-matcher';
import { requestPath } from './arbitraries/request-target';
import { longPath, longTemplate, plainCharacters, shortPath, shortTemplate, templateValues } from './arbitraries/uri-template';
import { fuzzParameters, fuzzTimeout } from './settings';

/** The request path a URL path stands for, or undefined when it is refused (400). */
function requestPathOf(text: string): RequestPath | undefined {
  try {
    return parseRequestPath(new URL(text.startsWith('/') ? text : `/${text}`, 'http://x').pathname);
  } catch {
    return undefined;
  }
}

/** Whether the values expand the template back to the path, segment by segment, decoded. */
function expandsTo(template: string, values: TemplateValues, path: RequestPath): boolean {
  let segments: string[];
  try {
    segments = uriTemplate(template).fill(values).split('/').map((segment) => decodeURIComponent(segment).normalize('NFC'));
  } catch {
    return false;
  }
  const wanted = ['', ...path.segments, ...(path.directory ? [''] : [])];
  return segments.length === wanted.length && wanted.every((segment, index) => segments[index] === segment);
}

/** The matcher before this one: `uri-templates` reads values back, kept when they expand to the path again. */
function formerMatch(template: string, path: RequestPath): TemplateValues | undefined {
  try {
    const values = uriTemplate(template).fromUri(formattedPath(path));
    return values && expandsTo(template, values, path) ? values : undefined;
  } catch {
    return undefined;
  }
}

const cost = 300;
const agreement = 3000;

describe('templated rules on hostile paths', () => {
  it('match any configuration within the limits at most 5× one plain rule per templated rule, plus a step per part', { timeout: fuzzTimeout(cost, 50) }, () => {
    const rules = fc.array(fc.oneof(longTemplate, shortTemplate), { minLength: 1, maxLength: 12 });
    const path = fc.oneof(longPath, requestPath, shortPath);
    fc.assert(
      fc.property(rules, rules, path, (redirects, headers, raw) => {
        const request = requestPathOf(raw);
        fc.pre(request !== undefined);
        let configuration;
        try {
          configuration = checkHostConfiguration({
            redirects: redirects.map((from) => ({ from, to: '/y' })),
            headers: headers.map((uri) => ({ uri, fields: { 'X-A': 'a' } })),
          });
        } catch {
          fc.pre(false);
        }
        const host = hostOptionsOf(configuration!);
        const meter = { steps: 0 };
        host.redirects.first(request!, meter);
        host.headers.all(request!, meter);
        // One plain rule reads the path once: its decoded length, and a step.
        const plain = decodedPath(request!).length + 1;
        const bound = [...redirects, ...headers].reduce((steps, template) => steps + 5 * plain + new TemplateMatcher(template).parts, 0);
        expect(meter.steps, `${raw.slice(0, 40)}`).toBeLessThanOrEqual(bound);
      }),
      fuzzParameters(cost),
    );
  });

  it('read values that expand back to the path, and match wherever the former matcher did', { timeout: fuzzTimeout(agreement, 5) }, () => {
    const plain = new Set(plainCharacters.map((char) => decodeURIComponent(char)));
    fc.assert(
      fc.property(shortTemplate, templateValues(), shortPath, fc.boolean(), (template, values, random, expanded) => {
        let text = random;
        if (expanded) {
          try {
            text = uriTemplate(template).fill(values);
          } catch {
            fc.pre(false);
          }
        }
        const path = requestPathOf(text);
        fc.pre(path !== undefined);
        const matched = pathTemplate(template).match(path!);
        if (matched) expect(expandsTo(template, matched, path!), JSON.stringify({ template, text, matched })).toBe(true);
        // Where the former matcher's choices are the only ones (no variable named twice, no two
        // expressions side by side, values without separators), this one finds a match too.
        const names = [...template.matchAll(/[{,][+#./;?&]?([a-d])/g)].map((found) => found[1]);
        const unambiguous = new Set(names).size === names.length && !/\}\{[^#./;?&]/.test(template);
        const plainValues = [...path!.segments.join('/')].every((char) => plain.has(char) || char === '/');
        if (unambiguous && plainValues && formerMatch(template, path!)) expect(matched, JSON.stringify({ template, text })).toBeDefined();
      }),
      fuzzParameters(agreement, 1),
    );
  });
});
