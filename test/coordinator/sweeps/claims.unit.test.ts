import { describe, expect, it } from 'vitest';
import { claimOf, replayable } from '../../../src/coordinator/sweeps/claims';
import type { FollowUp } from '../../../src/coordinator/sweeps/follow-ups';
import type { SiteRecord } from '../../../src/storage/sites-table';

const domain = 'claims.example';
const deleted: FollowUp = { kind: 'notify', event: { type: 'site-delete', domain } };
const updated: FollowUp = { kind: 'notify', event: { type: 'configuration-update', domain, deploymentId: 'd1' } };
const issue: FollowUp = { kind: 'issue-certificate', domain };
const deletion: FollowUp = { kind: 'delete-objects', objects: ['sites/claims.example/packs/p'] };

describe('a replayed follow-up and the claim that holds its domain now', () => {
  it('names a claim by its owner and when they claimed the domain: claimed again, even by the same user, it is another', () => {
    const site = { userId: 'github|a', created: 1 } as SiteRecord;
    expect(claimOf(site)).not.toBe(claimOf({ ...site, created: 2 }));
    expect(claimOf(null)).toBeNull();
  });

  it.each([
    ['an unpublish announced while no site holds the domain', deleted, 'a@1', null, true],
    ['an unpublish announced after a new claim', deleted, 'a@1', 'b@2', false],
    ['an unpublish kept before follow-ups named their claim, after a new claim', deleted, undefined, 'b@2', false],
    ['an event of the claim that holds the domain', updated, 'a@1', 'a@1', true],
    ['an event of an ended claim', updated, 'a@1', 'b@2', false],
    ['an event of a site unpublished since', updated, 'a@1', null, false],
    ["a certificate's issue for another claim", issue, 'a@1', 'b@2', false],
    ['a deletion, whatever the claim', deletion, 'a@1', 'b@2', true],
  ] as const)('%s', (_, work, written, current, runs) => {
    expect(replayable(work, written, current)).toBe(runs);
  });
});
