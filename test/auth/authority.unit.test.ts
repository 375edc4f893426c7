/**
 * The one table of who may do what (src/auth/authority.ts): its rules, and docs/api.md's copy of
 * it ("Who may do what"), which must be the table as generated. After changing the table, write
 * the copy with `WRITE_DOCS=1 npx vitest run --project unit test/auth/authority.unit.test.ts`.
 * test/api/authority.test.ts walks the same table against the running Worker.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Caller, authorityTable, callers, capped, ceilingOf, mayCall, routeRules } from '../../src/auth/authority';
import { repo } from '../docs/markdown';

const start = '<!-- authority table: generated from src/auth/authority.ts -->';
const end = '<!-- end of the authority table -->';
const apiDoc = join(repo, 'docs/api.md');

function documentedTable(text: string): string | null {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  return from < 0 || to < from ? null : text.slice(from + start.length, to).trim();
}

describe('the authority table', () => {
  it('is in docs/api.md as generated', () => {
    const text = readFileSync(apiDoc, 'utf8');
    if (process.env.WRITE_DOCS && documentedTable(text) !== null) {
      writeFileSync(apiDoc, `${text.slice(0, text.indexOf(start) + start.length)}\n\n${authorityTable()}\n\n${text.slice(text.indexOf(end))}`);
    }
    expect(documentedTable(readFileSync(apiDoc, 'utf8'))).toBe(authorityTable());
  });

  it('caps a role at the credential’s ceiling, and never raises one', () => {
    expect(capped('owner', 'deployer')).toBe('deployer');
    expect(capped('owner', 'owner')).toBe('owner');
    expect(capped('viewer', 'owner')).toBe('viewer');
    expect(capped('deployer', 'deployer')).toBe('deployer');
    expect(capped(null, 'owner')).toBeNull();
    expect(ceilingOf('ci', 'owner')).toBe('deployer');
    expect(ceilingOf('site-token', null)).toBe('deployer');
    expect(ceilingOf('user', null)).toBe('owner');
  });

  const ci = callers.find((caller) => caller.credential === 'ci')!;
  it('lets a CI identity deploy, preview, activate and edit, and nothing an owner alone does', () => {
    const allowed = routeRules.filter((rule) => mayCall(ci, rule)).map((rule) => rule.action);
    expect(new Set(allowed)).toEqual(new Set(['read', 'change', 'deploy']));
    for (const route of ['DELETE /v2/sites/<domain>', 'PUT /v2/sites/<domain>/members/<userId>', 'PUT /v2/sites/<domain>/trust/github', 'POST /v2/tokens']) {
      expect(mayCall(ci, routeRules.find((rule) => rule.route === route)!), route).toBe(false);
    }
  });

  it('never lets a credential do on a site what its user with their own credential may not', () => {
    const themselves = (caller: Caller): Caller => ({ ...caller, credential: 'user', tokenRole: null, elsewhere: undefined });
    for (const caller of callers) {
      for (const rule of routeRules) {
        if (mayCall(caller, rule)) expect(mayCall(themselves(caller), rule), `${caller.name}: ${rule.route}`).toBe(true);
      }
    }
  });

  it('makes a site token a deployer unless it was made with role owner', () => {
    const unpublish = routeRules.find((rule) => rule.route === 'DELETE /v2/sites/<domain>')!;
    expect(callers.filter((caller) => caller.relation === 'owner' && mayCall(caller, unpublish)).map((caller) => caller.name)).toEqual(['owner', 'owner’s site token, role owner']);
  });
});
