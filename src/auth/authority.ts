/**
 * Who a credential acts as, and the one table of what each caller may do on each route
 * (docs/design.md, "Authority"). A credential carries its user and a ceiling: the most it may be
 * on a site, whatever its user is there. A caller's role on a site is the lower of its user's
 * role there and that ceiling, so a credential never does more than it was given: least
 * privilege by construction, not by a check each route remembers.
 *
 * The table is generated into docs/api.md ("Who may do what"), and test/api/authority.test.ts
 * walks it against the running Worker, each caller against each route.
 */

/** A user's relation to a site, strongest first; a member is a deployer or a viewer. */
export const siteRoles = ['owner', 'deployer', 'viewer'] as const;
export type SiteRole = (typeof siteRoles)[number];

/** The most a credential may be on a site. */
export const ceilings = ['owner', 'deployer'] as const;
export type Ceiling = (typeof ceilings)[number];

/**
 * What kind of credential it is: the user themself (a JWT, or an API token of every site), an API
 * token limited to sites, or a GitHub Actions job's token from `POST /v2/oidc/github`.
 */
export type CredentialKind = 'user' | 'site-token' | 'ci';

/** The ceiling of each kind: a site token's is chosen when it is made (`role`, default deployer); a CI identity's is always deployer. */
export function ceilingOf(kind: CredentialKind, tokenRole: Ceiling | null): Ceiling {
  if (kind === 'user') return 'owner';
  if (kind === 'ci') return 'deployer';
  return tokenRole ?? 'deployer';
}

/** `role` held through a credential of `ceiling`: the weaker of the two (null: none). */
export function capped(role: SiteRole | null, ceiling: Ceiling): SiteRole | null {
  if (role === null) return null;
  return siteRoles.indexOf(role) < siteRoles.indexOf(ceiling) ? ceiling : role;
}

/**
 * What a route does to a site, or to its caller's account:
 * - `read`: the owner, a member, or anyone with `global_read`.
 * - `change`: the owner or a deployer: edit configuration, metadata and files, activate.
 * - `deploy`: `change`, or anyone when no site exists yet (the first deploy claims the domain).
 * - `own`: the owner: unpublish, manage members, set the trust policy.
 * - `read-own`: what only the owner sets (the trust policy), read by the owner or `global_read`.
 * - `account`: the caller's own tokens and events: the user themself, never a credential limited
 *   to sites (a site token or a CI identity acts on its sites, not on its user's account).
 * - `claim`: deploy to a domain no site holds, which makes the caller its owner: the user
 *   themself, never a credential limited to sites, whatever its role (it was not given the domain).
 * - `operate`: the service's operators (scope `admin`), on any site.
 */
export type SiteAction = 'read' | 'read-own' | 'change' | 'deploy' | 'own';
export type RouteAction = SiteAction | 'account' | 'operate' | 'claim';

/** The roles that may do each action on an existing site. */
export const allowedRoles: Record<SiteAction, readonly SiteRole[]> = {
  read: ['owner', 'deployer', 'viewer'],
  'read-own': ['owner'],
  change: ['owner', 'deployer'],
  deploy: ['owner', 'deployer'],
  own: ['owner'],
};

/** Whether `role` (already capped) may do `action` on an existing site. */
export function roleAllows(role: SiteRole | null, action: SiteAction): boolean {
  return role !== null && allowedRoles[action].includes(role);
}

/** One route, as docs/api.md names it, and what it does. */
export interface RouteRule {
  route: string;
  action: RouteAction;
  /** An operator (scope `admin`) may too, on any site. */
  operator?: true;
  /** Why the route needs what it needs, for the generated table. */
  why: string;
}

const reads = 'reads the site';
const edits = 'edits what is served, as a deploy does';
const grants = 'decides who else may reach or deploy the site';

/** Every route a caller's role, credential or scope decides, with one request each in test/api/authority.test.ts. */
export const routeRules: readonly RouteRule[] = [
  { route: 'GET /v2/sites/<domain>/info', action: 'read', why: reads },
  { route: 'GET /v2/sites/<domain>/configuration', action: 'read', why: reads },
  { route: 'GET /v2/sites/<domain>/files/<dir>/', action: 'read', why: reads },
  { route: 'GET /v2/sites/<domain>/deployments', action: 'read', why: reads },
  { route: 'GET /v2/sites/<domain>/deployments/<id>', action: 'read', why: reads },
  { route: 'GET /v2/sites/<domain>/deployments/<id>/rules', action: 'read', why: reads },
  { route: 'GET /v2/sites/<domain>/members', action: 'read', why: reads },
  { route: 'GET /v2/sites/<domain>/events', action: 'read', why: reads },
  { route: 'GET /v2/sites/<domain>/analytics', action: 'read', why: "reads the site's traffic" },
  { route: 'GET /v2/sites/<domain>/trust/github', action: 'read-own', why: 'shows who else may deploy, which the owner decides' },
  { route: 'GET /v2/sites/<domain>/protection', action: 'read-own', why: 'shows who may open the site, which the owner decides' },
  { route: 'POST /v2/sites/<domain>/share', action: 'read', why: 'shows the site to whoever opens the link, as its reader may' },
  { route: 'POST /v2/sites/<domain>/deployments/<id>/activate', action: 'change', why: edits },
  { route: 'PUT /v2/sites/<domain>/configuration', action: 'change', why: edits },
  { route: 'PATCH /v2/sites/<domain>/configuration', action: 'change', why: edits },
  { route: 'PUT /v2/sites/<domain>/info', action: 'change', why: 'edits metadata' },
  { route: 'PATCH /v2/sites/<domain>/info', action: 'change', why: 'edits metadata' },
  { route: 'PUT /v2/sites/<domain>/files/<path>', action: 'change', why: edits },
  { route: 'DELETE /v2/sites/<domain>/files/<path>', action: 'change', why: edits },
  { route: 'PUT /v2/sites/<domain>', action: 'deploy', why: 'deploys' },
  { route: 'PUT /v2/sites/<domain>?preview=true', action: 'deploy', why: 'makes a preview (an alias too, with its part)' },
  { route: 'POST /v2/sites/<domain>/deployments', action: 'deploy', why: 'deploys, incrementally' },
  { route: 'PUT /v2/sites/<free domain>', action: 'claim', why: 'claims the domain: its caller becomes the owner' },
  { route: 'PUT /v2/sites/<domain>/members/<userId>', action: 'own', why: grants },
  { route: 'DELETE /v2/sites/<domain>/members/<userId>', action: 'own', why: grants },
  { route: 'PUT /v2/sites/<domain>/trust/github', action: 'own', why: grants },
  { route: 'DELETE /v2/sites/<domain>/trust/github', action: 'own', why: grants },
  { route: 'PUT /v2/sites/<domain>/protection', action: 'own', why: grants },
  { route: 'DELETE /v2/sites/<domain>/share', action: 'own', why: grants },
  { route: 'PUT /v2/sites/<domain>/suspension', action: 'operate', why: "the operators' call" },
  { route: 'DELETE /v2/sites/<domain>/suspension', action: 'operate', why: "the operators' call" },
  { route: 'POST /v2/sites/<domain>/dead-letters/replay', action: 'operate', why: "the operators' call" },
  { route: 'POST /v2/sites/<domain>/reconcile', action: 'operate', why: "the operators' call" },
  { route: 'GET /v2/tokens', action: 'account', why: "the user's own credentials" },
  { route: 'POST /v2/tokens', action: 'account', why: 'makes a credential, which would outlive a site grant' },
  { route: 'DELETE /v2/tokens/<id>', action: 'account', why: "the user's own credentials" },
  { route: 'GET /v2/user/events', action: 'account', why: "the user's own events, across sites" },
  { route: 'DELETE /v2/sites/<domain>', action: 'own', operator: true, why: 'destroys the site and frees the domain' },
];

/** The scope a caller's credential holds (each caller holds one). */
export type CallerScope = 'deploy' | 'read' | 'global_read' | 'admin';

/** A kind of caller of a route of one existing site: its user's relation to the site, the credential it uses, its scope. */
export interface Caller {
  name: string;
  /** Its user's role on the site; null: none. */
  relation: SiteRole | null;
  credential: CredentialKind;
  /** A site token's `role` (null for other credentials). */
  tokenRole: Ceiling | null;
  scope: CallerScope;
  /** A credential limited to other sites than this one. */
  elsewhere?: true;
}

/** The callers the table names: each credential of the owner, each of a member, then everyone else. */
export const callers: readonly Caller[] = [
  { name: 'owner', relation: 'owner', credential: 'user', tokenRole: null, scope: 'deploy' },
  { name: 'owner’s site token, role owner', relation: 'owner', credential: 'site-token', tokenRole: 'owner', scope: 'deploy' },
  { name: 'owner’s site token (deployer)', relation: 'owner', credential: 'site-token', tokenRole: 'deployer', scope: 'deploy' },
  { name: 'CI identity', relation: 'owner', credential: 'ci', tokenRole: null, scope: 'deploy' },
  { name: 'owner’s token of another site', relation: 'owner', credential: 'site-token', tokenRole: 'owner', scope: 'deploy', elsewhere: true },
  { name: 'deployer', relation: 'deployer', credential: 'user', tokenRole: null, scope: 'deploy' },
  { name: 'deployer’s site token', relation: 'deployer', credential: 'site-token', tokenRole: 'deployer', scope: 'deploy' },
  { name: 'viewer', relation: 'viewer', credential: 'user', tokenRole: null, scope: 'deploy' },
  { name: 'viewer’s site token', relation: 'viewer', credential: 'site-token', tokenRole: 'deployer', scope: 'read' },
  { name: 'anyone else', relation: null, credential: 'user', tokenRole: null, scope: 'deploy' },
  { name: 'global_read', relation: null, credential: 'user', tokenRole: null, scope: 'global_read' },
  { name: 'operator', relation: null, credential: 'user', tokenRole: null, scope: 'admin' },
];

/** Whether `caller` may call `rule`'s route on an existing site (for `account`, on their own account). */
export function mayCall(caller: Caller, rule: RouteRule): boolean {
  if (rule.action === 'account') return caller.credential === 'user';
  if (rule.action === 'claim') return caller.credential === 'user' && caller.scope === 'deploy';
  if (caller.elsewhere) return false;
  if (caller.scope === 'admin') return rule.action === 'operate' || rule.operator === true;
  if (rule.action === 'operate') return false;
  const reading = rule.action === 'read' || rule.action === 'read-own';
  if (caller.scope === 'global_read') return reading;
  if (caller.scope === 'read' && !reading) return false;
  return roleAllows(capped(caller.relation, ceilingOf(caller.credential, caller.tokenRole)), rule.action);
}

/** The table as docs/api.md shows it: routes down, callers across, 403 where refused. */
export function authorityTable(): string {
  const header = `| Route | ${callers.map((caller) => caller.name).join(' | ')} | Why |`;
  const rule = `|---|${callers.map(() => '---').join('|')}|---|`;
  const rows = routeRules.map((entry) => `| \`${entry.route}\` | ${callers.map((caller) => (mayCall(caller, entry) ? 'yes' : '403')).join(' | ')} | ${entry.why} |`);
  return [header, rule, ...rows].join('\n');
}
