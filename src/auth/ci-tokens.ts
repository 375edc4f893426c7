/**
 * A CI identity's token (docs/api.md, "Trusted deploys"): what `POST /v2/oidc/github` makes for a
 * GitHub Actions job whose ID token a site's policy accepts. It acts for the sites' owner as a
 * deployer and never more (./authority.ts), lives minutes, and carries the job's verified claims,
 * which every deployment it makes records.
 */
import type { GithubJobProvenance } from '../common/api-types';
import type { GithubClaims } from './github-oidc';
import { newToken, newTokenId, sha256Hex } from './token-format';
import { type ApiTokenRecord, insertToken } from './token-store';

/** The longest an exchanged token lives. */
export const exchangedTokenMs = 15 * 60_000;

/** The workflow file of `job_workflow_ref` (`owner/name/<path>@<ref>`), whichever repository it lies in. */
function workflowFile(jobWorkflowRef: string): string {
  const at = jobWorkflowRef.lastIndexOf('@');
  const path = at < 0 ? jobWorkflowRef : jobWorkflowRef.slice(0, at);
  return path.split('/').slice(2).join('/');
}

/** What a deployment records of the job: the verified claims, never anything the request said. */
export function jobOf(claims: GithubClaims): GithubJobProvenance {
  return {
    repository: claims.repository,
    repositoryId: claims.repository_id,
    workflow: workflowFile(claims.job_workflow_ref),
    ref: claims.ref ?? null,
    sha: claims.sha ?? null,
    runId: claims.run_id ?? null,
    runAttempt: claims.run_attempt ?? null,
    actor: claims.actor ?? null,
    environment: claims.environment ?? null,
  };
}

/** Stores a new token of `job` for `userId`'s `sites` (scope deploy, a deployer there); answers it with its secret. */
export async function mintCiToken(db: D1Database, userId: string, sites: readonly string[], job: GithubJobProvenance, now: number): Promise<{ token: string; record: ApiTokenRecord }> {
  const token = newToken();
  const record: ApiTokenRecord = {
    id: newTokenId(),
    userId,
    name: `GitHub Actions: ${job.repository}/${job.workflow}${job.ref ? `@${job.ref}` : ''}`.slice(0, 200),
    hash: await sha256Hex(token),
    scopes: ['deploy'],
    sites: [...sites],
    role: 'deployer',
    job,
    created: now,
    expires: now + exchangedTokenMs,
    lastUsed: null,
    parentId: null,
  };
  // Outside API_TOKENS_PER_USER (the count leaves out tokens with a job): the exchange limits them per site and hour.
  await insertToken(db, record, Number.MAX_SAFE_INTEGER, now);
  return { token, record };
}
