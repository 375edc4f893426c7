/**
 * The workers files share runtimes (vitest.config.ts, `isolate: false`): a file finds the sites,
 * deployments and Durable Objects of the files that ran before it in the same runtime. A domain
 * written in two files would make one file's outcome depend on which ran first, so each domain a
 * workers file names is its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const testRoot = resolve(import.meta.dirname);

/** The workers project's files, as vitest.config.ts includes them (relative to test/). */
function workersFiles(): string[] {
  return readdirSync(testRoot, { recursive: true, encoding: 'utf8' }).filter(
    (path) => path.endsWith('.test.ts') && !path.endsWith('.unit.test.ts') && !path.startsWith(`node${sep}`),
  );
}

/** The domains a source writes whole in its strings: `'a.example'`, `"b.test"`, `` `c.example` `` and the host of `'http://d.example/x'`. */
function domainsNamed(source: string): Set<string> {
  const written = /(?<=['"`]|\/\/)((?:[a-z0-9-]+\.)+(?:example|test|com|org|net|dev))(?=['"`/:?])/g;
  return new Set([...source.matchAll(written)].map(([domain]) => domain));
}

/** Each domain named by more than one file, with the files. */
function sharedDomains(files: ReadonlyMap<string, string>): Record<string, string[]> {
  const namers = new Map<string, string[]>();
  for (const [file, source] of files) {
    for (const domain of domainsNamed(source)) namers.set(domain, [...(namers.get(domain) ?? []), file]);
  }
  return Object.fromEntries([...namers].filter(([, named]) => named.length > 1));
}

describe('workers files sharing a runtime', () => {
  it('each name domains of their own', () => {
    const files = new Map(workersFiles().map((path) => [path, readFileSync(join(testRoot, path), 'utf8')]));
    expect(files.size).toBeGreaterThan(50);
    expect(sharedDomains(files)).toEqual({});
  });

  it('are told apart when two name the same domain', () => {
    const files = new Map([
      ['a.test.ts', "deploy('site.example'); deploy(`other.example`);"],
      ['b.test.ts', "call('http://site.example/'); deploy(\"site.example\");"],
    ]);
    expect(sharedDomains(files)).toEqual({ 'site.example': ['a.test.ts', 'b.test.ts'] });
    expect(domainsNamed("deploy(`${prefix}-site.example`); call('http://b.example:8787/x');")).toEqual(new Set(['b.example']));
  });
});
