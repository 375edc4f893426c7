// With what credential a deployment was made (docs/api.md, "Provenance"), and how a listing says
// it. Shared by the Worker (which records it), the CLI and the dashboard (which show it): it
// imports nothing and uses only erasable TypeScript.

/**
 * With what credential a deployment was made, as the service verified it, never as the request
 * claimed: a sign-in (a JWT), an API token (its id and name), or a GitHub Actions job through
 * `POST /v2/oidc/github` (the ID token's verified claims, and the exchanged token's id).
 */
export type DeploymentProvenance =
  | { credential: 'jwt' }
  | { credential: 'api-token'; tokenId: string; tokenName: string }
  | ({ credential: 'github-actions'; tokenId: string } & GithubJobProvenance);

/** A GitHub Actions job as its verified ID token names it; null where the token carried no such claim. */
export interface GithubJobProvenance {
  repository: string;
  repositoryId: string;
  /** The workflow file, e.g. `.github/workflows/deploy.yml`. */
  workflow: string;
  ref: string | null;
  sha: string | null;
  runId: string | null;
  runAttempt: string | null;
  actor: string | null;
  environment: string | null;
}

/**
 * A deployment's provenance in a few words, for a listing: the job (`octo-org/site run 4242.2`,
 * its workflow, ref and actor), the token's name, or a sign-in; empty when not recorded.
 */
export function provenanceSummary(provenance: DeploymentProvenance | null): string {
  if (provenance === null) return '';
  if (provenance.credential === 'jwt') return 'sign-in';
  if (provenance.credential === 'api-token') return `token ${provenance.tokenName}`;
  const run = provenance.runId === null ? '' : ` run ${provenance.runId}${provenance.runAttempt === null ? '' : `.${provenance.runAttempt}`}`;
  const details = [provenance.workflow, provenance.ref, provenance.sha?.slice(0, 7), provenance.actor && `by ${provenance.actor}`].filter(Boolean).join(' ');
  return `${provenance.repository}${run} (${details})`;
}
