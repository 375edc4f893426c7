import { describe, expect, it } from 'vitest';
import document from '../../schema/openapi.json';
import type {
  ApiToken,
  BotTraffic,
  BrokenLink,
  DeploymentTraffic,
  SiteAnalytics,
  TopEntry,
  TopList,
  TrafficCounts,
  TrafficPoint,
  TrafficReport,
  TrafficTops,
  CertificateSummary,
  CreatedApiToken,
  ConfigurationRecord,
  Deployment,
  DeploymentFallback,
  DeploymentHeaders,
  DeploymentPage,
  DeploymentRedirect,
  DeploymentRules,
  DeployResult,
  DirectoryEntry,
  DomainProof,
  DomainProofProblem,
  DomainProofRecord,
  FileEntry,
  GithubTrustPolicy,
  Identity,
  LiveDeployment,
  LineError,
  OidcExchange,
  PointerError,
  ProblemDetails,
  Site,
  SiteInfo,
  SiteMember,
  SiteMembers,
  SignOut,
  SiteSuspension,
  UserSuspension,
} from '../../src/common/api-types';

/**
 * Each property of T, marked as TypeScript declares it. A shape below `satisfies` it only when it
 * names exactly T's properties with T's required-ness, so changing a shared type without its
 * shape here fails to compile, and the test compares each shape with schema/openapi.json.
 */
type Shape<T> = { [K in keyof T]-?: object extends Pick<T, K> ? 'optional' : 'required' };

interface JsonSchema {
  required?: string[];
  properties?: Record<string, JsonSchema>;
  oneOf?: JsonSchema[];
  items?: JsonSchema;
}

const schemas = document.components.schemas as Record<string, JsonSchema>;

const tokenShape = {
  id: 'required',
  name: 'required',
  scopes: 'required',
  sites: 'required',
  role: 'required',
  via: 'optional',
  createdAt: 'required',
  expiresAt: 'required',
  lastUsedAt: 'required',
  parentId: 'required',
} as const;

const trafficCountsShape = {
  requests: 'required',
  pageViews: 'required',
  visitors: 'required',
  bytes: 'required',
  status2xx: 'required',
  status3xx: 'required',
  status4xx: 'required',
  status5xx: 'required',
} as const;

function shapeOf(schema: JsonSchema | undefined): Record<string, 'optional' | 'required'> {
  expect(schema?.properties, 'an object schema').toBeDefined();
  const required = new Set(schema?.required ?? []);
  return Object.fromEntries(Object.keys(schema?.properties ?? {}).map((name) => [name, required.has(name) ? 'required' : 'optional']));
}

const shapes: [string, JsonSchema | undefined, Record<string, string>][] = [
  ['Site', schemas.Site, { domain: 'required', userId: 'required', modified: 'required', role: 'required' } satisfies Shape<Site>],
  ['SiteMember', schemas.SiteMember, { userId: 'required', role: 'required', addedAt: 'required' } satisfies Shape<SiteMember>],
  ['SiteMembers', schemas.SiteMembers, { owner: 'required', members: 'required' } satisfies Shape<SiteMembers>],
  [
    'GithubTrustPolicy',
    schemas.GithubTrustPolicy,
    {
      domain: 'required',
      repository: 'required',
      repositoryId: 'required',
      repositoryOwnerId: 'required',
      workflow: 'required',
      ref: 'required',
      environment: 'required',
      eventName: 'required',
      modified: 'required',
    } satisfies Shape<GithubTrustPolicy>,
  ],
  ['OidcExchange', schemas.OidcExchange, { token: 'required', expiresAt: 'required', sites: 'required' } satisfies Shape<OidcExchange>],
  ['ConfigurationRecord', schemas.ConfigurationRecord, { domain: 'required', modified: 'required', configuration: 'required' } satisfies Shape<ConfigurationRecord>],
  [
    'DeployResult',
    schemas.DeployResult,
    {
      type: 'required',
      domain: 'required',
      isNewDomain: 'required',
      hasNewFiles: 'required',
      hasNewConfiguration: 'required',
      deploymentId: 'required',
      committedAt: 'required',
      provenance: 'optional',
      unchanged: 'optional',
    } satisfies Shape<DeployResult>,
  ],
  [
    'FileEntry',
    schemas.FileEntry,
    { name: 'required', path: 'required', type: 'required', size: 'required', contentType: 'required', etag: 'required', modified: 'required' } satisfies Shape<FileEntry>,
  ],
  ['DirectoryEntry', schemas.DirectoryEntry, { name: 'required', path: 'required', type: 'required' } satisfies Shape<DirectoryEntry>],
  [
    'SiteInfo',
    schemas.SiteInfo,
    {
      domain: 'required',
      userId: 'required',
      created: 'required',
      modified: 'required',
      deployment: 'required',
      certificate: 'required',
      metadata: 'required',
      suspension: 'required',
      userSuspension: 'required',
    } satisfies Shape<SiteInfo>,
  ],
  ['SiteSuspension', schemas.SiteSuspension, { reason: 'required', since: 'required' } satisfies Shape<SiteSuspension>],
  ['UserSuspension', schemas.UserSuspension, { userId: 'required', reason: 'required', since: 'required', domains: 'required' } satisfies Shape<UserSuspension>],
  [
    'SiteInfo.deployment',
    schemas.SiteInfo?.properties?.deployment?.oneOf?.[0],
    { id: 'required', created: 'required', fileCount: 'required', totalBytes: 'required' } satisfies Shape<LiveDeployment>,
  ],
  [
    'Deployment',
    schemas.Deployment,
    {
      id: 'required',
      live: 'required',
      createdAt: 'required',
      createdBy: 'required',
      fileCount: 'required',
      totalBytes: 'required',
      source: 'required',
      previewUrl: 'required',
      liveUntil: 'required',
      preview: 'required',
      message: 'required',
      client: 'required',
      alias: 'required',
      aliasUrl: 'required',
      provenance: 'required',
      state: 'required',
      missing: 'optional',
    } satisfies Shape<Deployment>,
  ],
  ['Identity', schemas.Identity, { userId: 'required', scopes: 'required', issuer: 'required', expiresAt: 'required', tokenId: 'optional', sites: 'optional', role: 'optional', via: 'optional', suspension: 'optional' } satisfies Shape<Identity>],
  ['ApiToken', schemas.ApiToken, tokenShape satisfies Shape<ApiToken>],
  ['CreatedApiToken', schemas.CreatedApiToken, { ...tokenShape, token: 'required' } satisfies Shape<CreatedApiToken>],
  ['SignOut', schemas.SignOut, { revoked: 'required', signedOutBefore: 'required' } satisfies Shape<SignOut>],
  ['DeploymentPage', schemas.DeploymentPage, { deployments: 'required', next: 'required' } satisfies Shape<DeploymentPage>],
  ['DeploymentRules', schemas.DeploymentRules, { deploymentId: 'required', redirects: 'required', headers: 'required', fallbacks: 'required' } satisfies Shape<DeploymentRules>],
  ['DeploymentFallback', schemas.DeploymentFallback, { source: 'required', status: 'required', path: 'required' } satisfies Shape<DeploymentFallback>],
  [
    'DeploymentRedirect',
    schemas.DeploymentRedirect,
    {
      source: 'required',
      from: 'required',
      to: 'required',
      status: 'required',
      force: 'required',
      origin: 'optional',
      query: 'optional',
      countries: 'optional',
      languages: 'optional',
    } satisfies Shape<DeploymentRedirect>,
  ],
  ['DeploymentHeaders', schemas.DeploymentHeaders, { source: 'required', uri: 'required', fields: 'required', detach: 'required' } satisfies Shape<DeploymentHeaders>],
  [
    'SiteInfo.certificate',
    schemas.SiteInfo?.properties?.certificate,
    { status: 'required', issued: 'required', expires: 'required', reason: 'optional' } satisfies Shape<CertificateSummary>,
  ],
  ['Problem', schemas.Problem, { type: 'required', title: 'required', status: 'required', detail: 'required', errors: 'optional' } satisfies Shape<ProblemDetails>],
  ['Problem.errors: PointerError', schemas.PointerError, { pointer: 'required', message: 'required' } satisfies Shape<PointerError>],
  ['Problem.errors: LineError', schemas.LineError, { file: 'required', line: 'required', message: 'required' } satisfies Shape<LineError>],
  ['DomainProofRecord', schemas.DomainProofRecord, { name: 'required', type: 'required', value: 'required' } satisfies Shape<DomainProofRecord>],
  [
    'DomainProof',
    schemas.DomainProof,
    { domain: 'required', name: 'required', type: 'required', value: 'required', required: 'required', verified: 'required' } satisfies Shape<DomainProof>,
  ],
  ['SiteAnalytics', schemas.SiteAnalytics, { domain: 'required', from: 'required', to: 'required', interval: 'required', live: 'required', preview: 'required', alias: 'required', deployments: 'required' } satisfies Shape<SiteAnalytics>],
  ['TrafficReport', schemas.TrafficReport, { totals: 'required', series: 'required', top: 'required', bots: 'required' } satisfies Shape<TrafficReport>],
  ['TrafficCounts', schemas.TrafficCounts, trafficCountsShape satisfies Shape<TrafficCounts>],
  ['TrafficPoint', schemas.TrafficPoint, { start: 'required', ...trafficCountsShape } satisfies Shape<TrafficPoint>],
  ['TrafficTops', schemas.TrafficTops, { pages: 'required', referrers: 'required', countries: 'required', notFound: 'required' } satisfies Shape<TrafficTops>],
  ['TopList', schemas.TopList, { entries: 'required', other: 'required' } satisfies Shape<TopList>],
  ['TopEntry', schemas.TopEntry, { value: 'required', count: 'required' } satisfies Shape<TopEntry>],
  ['BotTraffic', schemas.BotTraffic, { requests: 'required', pageViews: 'required', bytes: 'required' } satisfies Shape<BotTraffic>],
  ['BrokenLink', schemas.BrokenLink, { path: 'required', count: 'required' } satisfies Shape<BrokenLink>],
  [
    'DeploymentTraffic',
    schemas.DeploymentTraffic,
    {
      deploymentId: 'required',
      liveFrom: 'required',
      requests: 'required',
      pageViews: 'required',
      bytes: 'required',
      status4xx: 'required',
      status5xx: 'required',
      rate4xx: 'required',
      rate5xx: 'required',
      previous: 'required',
      brokenLinks: 'required',
    } satisfies Shape<DeploymentTraffic>,
  ],
  ['DomainProofProblem (beside Problem)', schemas.DomainProofProblem, { record: 'required' } satisfies Shape<Omit<DomainProofProblem, keyof ProblemDetails>>],
];

describe('the shared API types and schema/openapi.json', () => {
  it.each(shapes)('%s has the same properties, equally required', (_name, schema, shape) => {
    expect(shapeOf(schema)).toEqual(shape);
  });

  it('lists a file listing as file and directory entries', () => {
    expect(schemas.FileListing?.items?.oneOf).toEqual([{ $ref: '#/components/schemas/FileEntry' }, { $ref: '#/components/schemas/DirectoryEntry' }]);
  });
});
