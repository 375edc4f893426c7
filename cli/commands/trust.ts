import pc from 'picocolors';
import { connect } from '../credentials.ts';
import { CliError } from '../errors.ts';
import { printJson } from '../format.ts';
import type { GithubTrustPolicy } from '../../src/common/api-types.ts';
import { sitePath } from '../../src/common/site-paths.ts';

export interface TrustGithubOptions {
  repository: string;
  workflow: string;
  ref?: string;
  environment?: string;
  repositoryId?: string;
  repositoryOwnerId?: string;
  json?: boolean;
}

/** The repository's numeric id and its owner's, from GitHub's API (SITEHOST_GITHUB_API, for GitHub Enterprise), unless given. */
async function repositoryIds(options: TrustGithubOptions): Promise<{ repositoryId: string; repositoryOwnerId: string }> {
  if (options.repositoryId && options.repositoryOwnerId) return { repositoryId: options.repositoryId, repositoryOwnerId: options.repositoryOwnerId };
  const api = process.env.SITEHOST_GITHUB_API || 'https://api.github.com';
  const url = `${api.replace(/\/+$/, '')}/repos/${options.repository}`;
  let answer: Response;
  try {
    answer = await fetch(url, { headers: { accept: 'application/vnd.github+json', 'user-agent': 'sitehost-cli' } });
  } catch (error) {
    throw new CliError('server', `Cannot reach ${url} for the repository's ids: pass --repository-id and --repository-owner-id.`, { cause: error });
  }
  const repository = (await answer.json().catch(() => null)) as { id?: number; owner?: { id?: number } } | null;
  if (!answer.ok || typeof repository?.id !== 'number' || typeof repository.owner?.id !== 'number') {
    throw new CliError(answer.status === 404 ? 'not-found' : 'server', `GitHub answered ${answer.status} for ${options.repository}: is it public? Else pass --repository-id and --repository-owner-id.`);
  }
  return { repositoryId: String(repository.id), repositoryOwnerId: String(repository.owner.id) };
}

/** `sitehost trust github`: lets the workflow deploy the site from GitHub Actions with no stored secret. */
export async function trustGithub(domain: string, options: TrustGithubOptions): Promise<void> {
  const ids = await repositoryIds(options);
  const api = await connect();
  const body = { repository: options.repository, ...ids, workflow: options.workflow, ...(options.ref ? { ref: options.ref } : {}), ...(options.environment ? { environment: options.environment } : {}) };
  const policy = await api.json<GithubTrustPolicy>(sitePath(domain, '/trust/github'), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (options.json) return printJson(policy);
  console.log(`${pc.green('✔')} ${pc.bold(domain)} trusts ${describe(policy)}.`);
  console.log('In that workflow: `permissions: id-token: write`, then `npx sitehost deploy` with SITEHOST_ORIGIN set and no token.');
}

function describe(policy: GithubTrustPolicy): string {
  const where = [policy.ref && `on ${policy.ref}`, policy.environment && `in the environment ${policy.environment}`].filter(Boolean).join(' ');
  return `${policy.repository} (id ${policy.repositoryId}), workflow ${policy.workflow}${where ? ` ${where}` : ''}`;
}

export async function showTrust(domain: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const policy = await api.json<GithubTrustPolicy>(sitePath(domain, '/trust/github'));
  if (options.json) return printJson(policy);
  console.log(`${pc.bold(domain)} trusts ${describe(policy)}.`);
}

export async function removeTrust(domain: string, options: { json?: boolean }): Promise<void> {
  const api = await connect();
  const response = await api.request(sitePath(domain, '/trust/github'), { method: 'DELETE' });
  await response.body?.cancel();
  if (options.json) return printJson({ domain, removed: true });
  console.log(`${pc.green('✔')} ${pc.bold(domain)} trusts no GitHub workflow any more.`);
}
