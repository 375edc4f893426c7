import pc from 'picocolors';
import { terminalSafe } from '../../src/common/control-characters.ts';
import type { ApiClient } from '../api.ts';
import { connect } from '../credentials.ts';
import { deploymentPath } from '../deploy/incremental.ts';
import { CliError } from '../errors.ts';
import { count, formatTimestamp, printJson, table } from '../format.ts';
import { confirm } from '../input.ts';
import type { DeployResult, Deployment, DeploymentPage } from '../../src/common/api-types.ts';
import { aliasHostNote, messageSummary } from '../../src/common/deployment-labels.ts';
import { provenanceSummary } from '../../src/common/provenance.ts';
import { formatBytes } from '../../src/common/format-bytes.ts';
import { sitePath } from '../../src/common/site-paths.ts';

/** Every page of the site's deployments, newest first, until `enough` says the ones read so far suffice. */
async function readDeployments(api: ApiClient, domain: string, enough: (read: Deployment[]) => boolean = () => false): Promise<Deployment[]> {
  const all: Deployment[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `?cursor=${encodeURIComponent(cursor)}`;
    const page: DeploymentPage = await api.json<DeploymentPage>(sitePath(domain, `/deployments${query}`));
    all.push(...page.deployments);
    cursor = page.next;
  } while (cursor !== null && !enough(all));
  return all;
}

/** Live, a preview never made live, or neither (a deployment that was live). */
function statusOf(deployment: Deployment): string {
  if (deployment.live) return pc.green('live');
  return deployment.preview && deployment.liveUntil === null ? pc.yellow('preview') : '';
}

/**
 * The kept deployments, newest first: status (live, preview), id, time to the second, who made
 * it and with what credential (a GitHub Actions run, a token, a sign-in), through what and how (`cli deploy`), files, size, alias, message (its first line) and
 * preview URL; then each alias's URL, which serves the newest deployment with it.
 */
export async function listDeployments(domain: string, options: { json?: boolean }): Promise<void> {
  const api = await connect(domain);
  const deployments = await readDeployments(api, domain);
  if (options.json) return printJson(deployments);
  if (deployments.length === 0) return console.log(`No deployments of ${domain}.`);
  // Every cell but the status is the server's text (a message is another person's): escaped where printed.
  const rows = deployments.map((deployment) => [
    statusOf(deployment),
    ...[
      deployment.id,
      formatTimestamp(deployment.createdAt),
      deployment.createdBy,
      provenanceSummary(deployment.provenance),
      [deployment.client, deployment.source].filter(Boolean).join(' '),
      String(deployment.fileCount),
      formatBytes(deployment.totalBytes),
      deployment.alias ?? '',
      messageSummary(deployment.message, 40),
      deployment.previewUrl,
    ].map(terminalSafe),
  ]);
  console.log(table(['STATUS', 'ID', 'CREATED', 'BY', 'VIA', 'SOURCE', 'FILES', 'SIZE', 'ALIAS', 'MESSAGE', 'PREVIEW'], rows));
  // Newest first: the first deployment with an alias is the one its host serves.
  const aliases = new Map<string, Deployment>();
  for (const deployment of deployments) if (deployment.alias && !aliases.has(deployment.alias)) aliases.set(deployment.alias, deployment);
  if (aliases.size === 0) return;
  console.log(`\n${pc.bold('Aliases')} (each serves the newest deployment with it):`);
  for (const [alias, deployment] of aliases) console.log(`  ${terminalSafe(alias)}  ${pc.cyan(terminalSafe(deployment.aliasUrl ?? ''))}  ${pc.dim(terminalSafe(deployment.id))}`);
  const [first] = aliases.values();
  const note = first?.aliasUrl && aliasHostNote(domain, first.aliasUrl);
  if (note) console.log(pc.dim(terminalSafe(note)));
}

/**
 * The deployment made live by a rollback without an id: the newest one older than the live one
 * that was live once (`liveUntil`), so that repeating it steps further back and a preview never
 * made live is never put live by surprise.
 */
async function previousDeployment(api: ApiClient, domain: string): Promise<Deployment> {
  const previousOf = (read: Deployment[]) => {
    const live = read.findIndex((deployment) => deployment.live);
    return live < 0 ? undefined : read.slice(live + 1).find((deployment) => deployment.liveUntil !== null);
  };
  const deployments = await readDeployments(api, domain, (read) => previousOf(read) !== undefined);
  if (!deployments.some((deployment) => deployment.live)) throw new CliError('not-found', `${domain} has no live deployment to roll back from.`);
  const previous = previousOf(deployments);
  if (!previous) throw new CliError('not-found', `${domain} has no deployment older than the live one that was live; name one (sitehost deployments ${domain}).`);
  return previous;
}

function describe(deployment: Deployment): string {
  return `${terminalSafe(deployment.id)} (${formatTimestamp(deployment.createdAt)}, ${count(deployment.fileCount, 'file')}, ${formatBytes(deployment.totalBytes)})`;
}

/** Makes a kept deployment live again: the one named, or the newest older one that was live (see previousDeployment). */
export async function rollback(domain: string, id: string | undefined, options: { yes?: boolean; json?: boolean }): Promise<void> {
  if (!options.yes && !process.stdin.isTTY) throw new CliError('usage', `Refusing to roll back ${domain} without --yes when not on a terminal.`);
  const api = await connect(domain);
  const target = id === undefined ? await previousDeployment(api, domain) : await api.json<Deployment>(deploymentPath(domain, id));
  if (!options.yes && !(await confirm(`Make deployment ${describe(target)} live on ${domain}?`))) {
    throw new CliError('usage', 'Cancelled; the live site is unchanged.');
  }
  const result = await api.json<DeployResult>(deploymentPath(domain, target.id, '/activate'), { method: 'POST' });
  if (options.json) return printJson(result);
  console.log(`${pc.green('✔')} ${pc.bold(domain)} now serves deployment ${describe(target)}.`);
}
