import { spawnSync } from 'node:child_process';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { undocumentedAnswers } from './support/service';

/**
 * schema/openapi.json as the common tools read it: code generators and documentation sites load
 * it with swagger-parser or Redocly, which resolve every `$ref` against the document itself.
 */

const repo = new URL('../..', import.meta.url).pathname;
const documentPath = `${repo}schema/openapi.json`;
const redocly = `${repo}node_modules/@redocly/cli/bin/cli.js`;

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: 'error' | 'warn'; message: string; location: { pointer: string }[] }[];
}

describe('schema/openapi.json in the common tools', () => {
  it('passes swagger-parser validate: the OpenAPI 3.1 schema, and every $ref resolves', async () => {
    await expect(SwaggerParser.validate(documentPath)).resolves.toMatchObject({ openapi: '3.1.0' });
  });

  it("passes Redocly's lint with the recommended rules: no error", () => {
    const linted = spawnSync(process.execPath, [redocly, 'lint', documentPath, '--extends=recommended', '--format=json'], {
      cwd: repo,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const report = JSON.parse(linted.stdout) as LintReport;
    const errors = report.problems.filter((problem) => problem.severity === 'error');
    expect(errors.map((error) => `${error.ruleId} at ${error.location[0]?.pointer}: ${error.message}`)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(linted.status).toBe(0);
  });
});

describe("the black-box tests' check of every API answer", () => {
  it("reads wrangler dev's request lines: a status the document does not list for a documented operation", () => {
    const log = [
      '[wrangler:info] Ready on http://127.0.0.1:8787',
      '[wrangler:info] GET /v2/sites 401 Unauthorized (94ms)',
      '[wrangler:info] GET /v2/sites/a.example/info?x=1 404 Not Found (3ms)',
      // Another method answers the documented 405; other paths are not the API's.
      '[wrangler:info] PATCH /v2/openapi.json 405 Method Not Allowed (3ms)',
      '[wrangler:info] GET /index.html 404 Not Found (2ms)',
      "[wrangler:info] GET /v2/sites 418 I'm a teapot (1ms)",
      "[wrangler:info] GET /v2/sites?limit=1 418 I'm a teapot (1ms)",
    ].join('\n');
    expect(undocumentedAnswers(log)).toEqual(['GET /v2/sites → 418']);
  });
});
