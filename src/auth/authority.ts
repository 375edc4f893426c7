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
 * - `account`: the caller's own tokens, usage and events: the user themself, never a credential
 *   limited to sites (a site token or a CI identity acts on its sites, not on its user's account).
 */
export type SiteAction = 'read' | 'read-own' | 'change' | 'deploy' | 'own';
export type RouteAction = SiteAction | 'account';

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
  /** Why the route needs what it needs, for the generated table. */
  why: string;
}

/** Every route a caller's role or credential decides (the operators' routes need the `admin` scope instead). */
export const routeRules: readonly RouteRule[] = [
  { route: 'GET /v2/sites/<domain>/configuration', action: 'read', why: 'reads' },
  { route: 'GET /v2/sites/<domain>/files/<dir>/', action: 'read', why: 'reads' },
  { route: 'GET /v2/sites/<domain>/info', action: 'read', why: 'reads' },
  { route: 'GET /v2/sites/<domain>/deployments', action: 'read', why: 'reads' },
  { route: 'GET /v2/sites/<domain>/members', action: 'read', why: 'reads' },
  { route: 'GET /v2/sites/<domain>/events', action: 'read', why: 'reads' },
  { route: 'PUT /v2/sites/<domain>', action: 'deploy', why: 'deploys (a preview with `?preview=true`, an alias with its part)' },
  { route: 'POST /v2/sites/<domain>/deployments', action: 'deploy', why: 'deploys, incrementally' },
  { route: 'POST /v2/sites/<domain>/deployments/<id>/activate', action: 'change', why: 'changes what is live, as a deploy does' },
  { route: 'PUT /v2/sites/<domain>/configuration', action: 'change', why: 'edits the host options, as a deploy does' },
  { route: 'PATCH /v2/sites/<domain>/info', action: 'change', why: 'edits metadata' },
  { route: 'PUT /v2/sites/<domain>/files/<path>', action: 'change', why: 'edits files, as a deploy does' },
  { route: 'DELETE /v2/sites/<domain>/files/<path>', action: 'change', why: 'edits files, as a deploy does' },
  { route: 'GET /v2/sites/<domain>/trust/github', action: 'read-own', why: 'shows who else may deploy: the owner decides that' },
  { route: 'PUT /v2/sites/<domain>/trust/github', action: 'own', why: 'decides who else may deploy' },
  { route: 'DELETE /v2/sites/<domain>/trust/github', action: 'own', why: 'decides who else may deploy' },
  { route: 'PUT /v2/sites/<domain>/members/<userId>', action: 'own', why: 'decides who else may reach the site' },
  { route: 'DELETE /v2/sites/<domain>/members/<userId>', action: 'own', why: 'decides who else may reach the site' },
  { route: 'DELETE /v2/sites/<domain>', action: 'own', why: 'destroys the site and frees the domain' },
  { route: 'GET /v2/tokens', action: 'account', why: "the user's own credentials" },
  { route: 'POST /v2/tokens', action: 'account', why: "makes a credential: a site's credential would outlive its grant" },
  { route: 'DELETE /v2/tokens', action: 'account', why: "the user's own credentials" },
  { route: 'GET /v2/usage', action: 'account', why: "the user's account, across sites" },
  { route: 'GET /v2/user/events', action: 'account', why: "the user's account, across sites" },
];

/** A kind of caller of a route of one existing site: its user's relation to the site and the credential it uses. */
export interface Caller {
  name: string;
  /** Its user's role on the site; null: none. */
  relation: SiteRole | null;
  credential: CredentialKind;
  /** A site token's `role` (null for other credentials). */
  tokenRole: Ceiling | null;
}

/** The callers the table names: each credential kind of the owner, then members and strangers with their own credentials. */
export const callers: readonly Caller[] = [
  { name: 'owner', relation: 'owner', credential: 'user', tokenRole: null },
  { name: "owner's site token, role owner", relation: 'owner', credential: 'site-token', tokenRole: 'owner' },
  { name: "owner's site token (deployer)", relation: 'owner', credential: 'site-token', tokenRole: 'deployer' },
  { name: 'CI identity (GitHub exchange)', relation: 'owner', credential: 'ci', tokenRole: null },
  { name: 'deployer', relation: 'deployer', credential: 'user', tokenRole: null },
  { name: 'viewer', relation: 'viewer', credential: 'user', tokenRole: null },
  { name: 'anyone else', relation: null, credential: 'user', tokenRole: null },
];

/** Whether `caller` may call `rule`'s route on an existing site of theirs (for `account`, on their own account). */
export function mayCall(caller: Caller, rule: RouteRule): boolean {
  if (rule.action === 'account') return caller.credential === 'user';
  return roleAllows(capped(caller.relation, ceilingOf(caller.credential, caller.tokenRole)), rule.action);
}

/** The table as docs/api.md shows it, between its markers: routes down, callers across, 403 where refused. */
export function authorityTable(): string {
  const header = `| Route | ${callers.map((caller) => caller.name).join(' | ')} | Why |`;
  const rule = `|---|${callers.map(() => '---').join('|')}|---|`;
  const rows = routeRules.map((entry) => `| \`${entry.route}\` | ${callers.map((caller) => (mayCall(caller, entry) ? 'yes' : '403')).join(' | ')} | ${entry.why} |`);
  return [header, rule, ...rows].join('\n');
}
