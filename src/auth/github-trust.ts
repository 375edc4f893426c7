/**
 * A site's GitHub Actions trust policy: what `PUT /v2/sites/<domain>/trust/github` accepts, and
 * which claim of a job's ID token (./github-oidc.ts) fails to match it.
 */
import { Problem } from '../http/problem';
import type { GithubTrust } from '../storage/trust-table';
import type { GithubClaims } from './github-oidc';

/** GitHub's rules: an owner of letters, digits and inner hyphens (39 at most); a name of letters, digits, `.`, `_`, `-` (100). */
const repositoryPattern = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?\/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;
/** A workflow file under .github/workflows, as `job_workflow_ref` names it. */
const workflowPattern = /^\.github\/workflows\/[^/\\\u0000-\u001f]{1,200}\.ya?ml$/;
const idPattern = /^[1-9][0-9]{0,19}$/;
const maxClaimLength = 255;
const fields = new Set(['repository', 'repositoryId', 'repositoryOwnerId', 'workflow', 'ref', 'environment', 'eventName']);
/** The event that started the workflow, as GitHub names them (`push`, `workflow_dispatch`, …). */
const eventPattern = /^[a-z][a-z_]{0,63}$/;
/**
 * Runs with the base repository's `ref` and secrets on a fork's pull request: a workflow that checks
 * out the pull request's head would deploy a fork's code, so only a policy naming it accepts it.
 */
export const pullRequestTarget = 'pull_request_target';

function invalid(detail: string): Problem {
  return new Problem('invalid-request', detail);
}

/** A numeric id, as a number or a string of digits; stored as GitHub's claims carry it (a string). */
function idOf(value: unknown, name: string): string {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !idPattern.test(text)) {
    throw invalid(`"${name}" is GitHub's numeric id (e.g. from https://api.github.com/repos/<owner>/<name>: "id" and "owner.id"), not ${JSON.stringify(value)}.`);
  }
  return text;
}

function optionalClaim(value: unknown, name: string, check?: RegExp, expected?: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '' || value.length > maxClaimLength || (check && !check.test(value))) {
    throw invalid(`"${name}" is ${expected ?? `a string of 1 to ${maxClaimLength} characters`}, or absent for any; not ${JSON.stringify(value)}.`);
  }
  return value;
}

/** The policy in `body`; 400 naming the field that is malformed. A bare workflow file name is read as one under .github/workflows. */
export function githubTrustOf(body: unknown): GithubTrust {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('Send a JSON object: {"repository", "repositoryId", "repositoryOwnerId", "workflow", "ref"?, "environment"?, "eventName"?}.');
  const input = body as Record<string, unknown>;
  const unknown = Object.keys(input).filter((key) => !fields.has(key));
  if (unknown.length > 0) throw invalid(`A trust policy has no field ${unknown.map((key) => JSON.stringify(key)).join(', ')}.`);
  const { repository, workflow } = input;
  if (typeof repository !== 'string' || !repositoryPattern.test(repository)) {
    throw invalid(`"repository" is "<owner>/<name>" as on GitHub, not ${JSON.stringify(repository)}.`);
  }
  const path = typeof workflow === 'string' && !workflow.includes('/') ? `.github/workflows/${workflow}` : workflow;
  if (typeof path !== 'string' || !workflowPattern.test(path) || path.includes('..')) {
    throw invalid(`"workflow" is the workflow file, e.g. ".github/workflows/deploy.yml", not ${JSON.stringify(workflow)}.`);
  }
  return {
    repository,
    repositoryId: idOf(input.repositoryId, 'repositoryId'),
    repositoryOwnerId: idOf(input.repositoryOwnerId, 'repositoryOwnerId'),
    workflow: path,
    ref: optionalClaim(input.ref, 'ref', /^refs\/[^\u0000-\u001f]+$/, 'a full ref, e.g. "refs/heads/main"'),
    environment: optionalClaim(input.environment, 'environment'),
    eventName: optionalClaim(input.eventName, 'eventName', eventPattern, 'a GitHub event name, e.g. "push"'),
  };
}

/** The workflow file of `job_workflow_ref` (`owner/repo/<path>@<ref>`), when it lies in `repository`. */
function workflowOf(jobWorkflowRef: string, repository: string): string | null {
  const at = jobWorkflowRef.lastIndexOf('@');
  const ref = at < 0 ? jobWorkflowRef : jobWorkflowRef.slice(0, at);
  const prefix = `${repository.toLowerCase()}/`;
  return ref.toLowerCase().startsWith(prefix) ? ref.slice(prefix.length) : null;
}

/** The first claim of `claims` that `policy` does not accept, in the order they narrow it; null when all match. */
export function mismatchedClaim(policy: GithubTrust, claims: GithubClaims): keyof GithubClaims | null {
  if (claims.repository_id !== policy.repositoryId) return 'repository_id';
  if (claims.repository_owner_id !== policy.repositoryOwnerId) return 'repository_owner_id';
  if (workflowOf(claims.job_workflow_ref, claims.repository) !== policy.workflow) return 'job_workflow_ref';
  if (policy.ref !== null && claims.ref !== policy.ref) return 'ref';
  if (policy.environment !== null && claims.environment !== policy.environment) return 'environment';
  if (policy.eventName !== null ? claims.event_name !== policy.eventName : claims.event_name === pullRequestTarget) return 'event_name';
  return null;
}

/** The order of `mismatchedClaim`'s checks: of several policies, the one matched furthest names the refusal. */
export const claimOrder: readonly (keyof GithubClaims)[] = ['repository_id', 'repository_owner_id', 'job_workflow_ref', 'ref', 'environment', 'event_name'];
