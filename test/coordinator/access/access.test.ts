import { describe, expect, it } from 'vitest';
import { type Requester, type SiteAction, authorize } from '../../../src/coordinator/access/access';
import { outcomeOf } from '../../support/outcome';

const owner: Requester = { userId: 'github|1', ceiling: 'owner', scopes: new Set(['deploy']) };
const stranger: Requester = { userId: 'github|2', ceiling: 'owner', claims: true, scopes: new Set(['deploy']) };
/** A credential limited to sites (a site token of role owner, here): it claims no domain. */
const limited: Requester = { userId: 'github|2', ceiling: 'owner', claims: false, scopes: new Set(['deploy']) };
const reader: Requester = { userId: 'github|3', ceiling: 'owner', scopes: new Set(['global_read']) };
/** The coordinator asks with no token, so with no scopes. */
const coordinatorForOwner: Requester = { userId: 'github|1', ceiling: 'owner' };
const coordinatorForStranger: Requester = { userId: 'github|2', ceiling: 'owner' };

/** The rule alone; test/events/access.test.ts and test/api/sites.test.ts show it answering requests. */
describe('authorize', () => {
  it.each<[string, Requester, string | null, SiteAction, string]>([
    // a domain without a site
    ['anyone deploys to a free domain (and claims it)', stranger, null, 'deploy', 'ok'],
    ['a credential limited to sites does not, whatever its ceiling', limited, null, 'deploy', '403 forbidden'],
    ['nobody changes a site that does not exist', owner, null, 'change', '404 site-not-found'],
    ['nobody reads a site that does not exist', reader, null, 'read', '404 site-not-found'],
    // the owner
    ['the owner reads', owner, 'github|1', 'read', 'ok'],
    ['the owner changes', owner, 'github|1', 'change', 'ok'],
    ['the owner deploys again', owner, 'github|1', 'deploy', 'ok'],
    ['the coordinator, for the owner', coordinatorForOwner, 'github|1', 'change', 'ok'],
    // someone else
    ['another user does not read', stranger, 'github|1', 'read', '403 forbidden'],
    ['another user does not change', stranger, 'github|1', 'change', '403 forbidden'],
    ['another user does not deploy over it', stranger, 'github|1', 'deploy', '403 forbidden'],
    ['the coordinator, for another user', coordinatorForStranger, 'github|1', 'deploy', '403 forbidden'],
    // global_read
    ['global_read reads any site', reader, 'github|1', 'read', 'ok'],
    ['global_read does not change', reader, 'github|1', 'change', '403 forbidden'],
    ['global_read does not deploy', reader, 'github|1', 'deploy', '403 forbidden'],
  ])('%s', (_, requester, siteOwner, action, expected) => {
    const site = siteOwner === null ? null : { userId: siteOwner, suspension: null, userSuspension: null };
    expect(outcomeOf(() => authorize(requester, 'site.example', site, action))).toBe(expected);
  });

  const suspended = { userId: 'github|1', suspension: { reason: 'Phishing reported', since: Date.UTC(2026, 10, 26) }, userSuspension: null };
  it.each<[string, Requester, SiteAction, string]>([
    ['the owner still reads a suspended site', owner, 'read', 'ok'],
    ['global_read still reads it', reader, 'read', 'ok'],
    ['the owner does not change it', owner, 'change', '403 site-suspended'],
    ['the owner does not deploy to it', owner, 'deploy', '403 site-suspended'],
    ['the coordinator, for the owner', coordinatorForOwner, 'deploy', '403 site-suspended'],
    ['another user still gets 403 forbidden', stranger, 'change', '403 forbidden'],
  ])('%s', (_, requester, action, expected) => {
    expect(outcomeOf(() => authorize(requester, 'site.example', suspended, action))).toBe(expected);
  });

  // An operator suspended the owner (user suspension): they read their sites, and change none of them.
  const ownerSuspended = { userId: 'github|1', suspension: null, userSuspension: { reason: 'Repeated phishing', since: Date.UTC(2026, 10, 27) } };
  it.each<[string, Requester, SiteAction, string]>([
    ['a suspended user still reads their site', owner, 'read', 'ok'],
    ['global_read still reads it', reader, 'read', 'ok'],
    ['a suspended user does not change it', owner, 'change', '403 user-suspended'],
    ['a suspended user does not deploy to it', owner, 'deploy', '403 user-suspended'],
    ['the coordinator, for the suspended user', coordinatorForOwner, 'deploy', '403 user-suspended'],
    ['another user still gets 403 forbidden', stranger, 'change', '403 forbidden'],
  ])('%s', (_, requester, action, expected) => {
    expect(outcomeOf(() => authorize(requester, 'site.example', ownerSuspended, action))).toBe(expected);
  });

  // The owner through a credential capped at deployer (a CI identity, a site token without role owner).
  const ownersDeployer: Requester = { userId: 'github|1', ceiling: 'deployer', scopes: new Set(['deploy']) };
  const site = { userId: 'github|1', suspension: null, userSuspension: null };
  it.each<[string, SiteAction, string]>([
    ['reads', 'read', 'ok'],
    ['changes', 'change', 'ok'],
    ['deploys', 'deploy', 'ok'],
    ['does not unpublish, manage members or set trust', 'own', '403 forbidden'],
    ['does not see the trust policy', 'read-own', '403 forbidden'],
  ])('the owner through a deployer’s credential %s', (_, action, expected) => {
    expect(outcomeOf(() => authorize(ownersDeployer, 'site.example', site, action))).toBe(expected);
  });
});
