import { relative, resolve } from 'node:path';
import { terminalSafe } from '../../src/common/control-characters.ts';
import pc from 'picocolors';
import { connect } from '../credentials.ts';
import type { ApiClient } from '../api.ts';
import { type CollectedFolder, collectFolder } from '../deploy/collect.ts';
import { type HashedLocalFile, hashFolder } from '../deploy/hash.ts';
import { HashCache } from '../deploy/hash-cache.ts';
import { type DeploymentIntent, deploymentPath, openDeployment } from '../deploy/incremental.ts';
import { type Published, publish, sizeOf } from '../deploy/publish.ts';
import { checkedDomain } from '../domain.ts';
import { CliError } from '../errors.ts';
import { count, printJson } from '../format.ts';
import type { DeployResult, Deployment } from '../../src/common/api-types.ts';
import type { ShareLink } from '../../src/common/protection-types.ts';
import { aliasFrom, aliasHostNote, messageProblem } from '../../src/common/deployment-labels.ts';
import { formatBytes } from '../../src/common/format-bytes.ts';
import { sitePath } from '../../src/common/site-paths.ts';
import { siteUrl } from '../../src/common/site-url.ts';
import { readJsonArgument } from '../input.ts';
import { mintShareLink } from './share.ts';

export interface DeployOptions {
  /** The same as the [dir] argument, as `netlify deploy --dir` takes it. */
  dir?: string;
  domain?: string;
  config?: string;
  /** Live: the default, and with --alias the way to keep it live. */
  prod?: boolean;
  preview?: boolean;
  alias?: string;
  message?: string;
  json?: boolean;
  /** False with --no-cache: every file is read and hashed, and the service asked what it lacks. */
  cache?: boolean;
}

/** The host options file, and the domain it names (used when --domain is not given). */
async function readHostOptions(path: string | undefined): Promise<{ options?: object; domain?: string }> {
  if (path === undefined) return {};
  const options = await readJsonArgument(path, 'host configuration');
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new CliError('usage', `The host configuration in ${path} must be a JSON object.`);
  }
  const { domain } = options as { domain?: unknown };
  return { options, domain: typeof domain === 'string' ? domain : undefined };
}

/** The folder to deploy: `[dir]` or `--dir` (both only when they agree), else the current folder. */
function folderOf(positional: string | undefined, options: DeployOptions): string {
  if (positional !== undefined && options.dir !== undefined && resolve(positional) !== resolve(options.dir)) {
    throw new CliError('usage', `Two folders given: ${positional} and --dir ${options.dir}; give one.`);
  }
  return options.dir ?? positional ?? '.';
}

/**
 * What the deployment is, from the flags, checked before any file is read: live (the default, and
 * `--prod`) or a preview (`--preview`, or `--alias` without `--prod`), its message and its alias,
 * made of any name as Cloudflare Pages makes a branch alias.
 */
function intentOf(options: DeployOptions, configuration: unknown, say: (line: string) => void): DeploymentIntent {
  if (options.prod && options.preview) throw new CliError('usage', '--prod makes the deployment live and --preview does not; give one.');
  const message = options.message || undefined;
  const refusal = message && messageProblem(message);
  if (refusal) throw new CliError('usage', `The --message is refused: ${refusal}.`);
  let alias: string | undefined;
  if (options.alias !== undefined) {
    alias = aliasFrom(options.alias);
    if (!alias) throw new CliError('usage', `The --alias ${JSON.stringify(options.alias)} has no letter or digit to make an alias of.`);
    if (alias !== options.alias) say(`Alias ${JSON.stringify(options.alias)} is sent as ${pc.bold(alias)}.`);
  }
  const finalize = options.preview || (alias !== undefined && !options.prod) ? 'preview' : 'live';
  return { configuration, finalize, message, alias };
}

function describe(result: DeployResult): string {
  return [
    result.isNewDomain ? 'new site' : 'existing site',
    result.hasNewFiles ? 'files replaced' : pc.dim('files unchanged'),
    result.hasNewConfiguration ? 'configuration replaced' : pc.dim('configuration unchanged'),
  ].join(', ');
}

/** Calls `start` the first time, and answers every call with that first call's promise. */
function once<T>(start: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => (started ??= start());
}

/**
 * Deploys incrementally: hashes the folder (reading only files changed since the last deploy
 * from it), sends the manifest and only the content the service lacks, then finalizes.
 */
export async function deploy(positional: string | undefined, options: DeployOptions): Promise<void> {
  const say = (line: string) => {
    if (!options.json) process.stderr.write(`${line}\n`);
  };
  const dir = folderOf(positional, options);
  const hostOptions = await readHostOptions(options.config);
  const intent = intentOf(options, hostOptions.options, say);
  const named = options.domain ?? hostOptions.domain;
  if (!named) throw new CliError('usage', 'Which domain? Pass --domain example.com (or set "domain" in the --config file).');
  const domain = checkedDomain(named);
  const api = await connect(domain);
  const root = resolve(dir);
  const cache = await HashCache.open(root, options.cache !== false);
  const target = `${api.origin} ${domain}`;
  const last = cache.deployedTo(target);
  // What the service would refuse the deploy for: a refusal should come before a large upload
  // begins, and explains a small one cut short (see publish). A folder deployed here before likely
  // takes one small request, opened now (see openDeployment), and asks only if that fails; any
  // other asks while it is hashed.
  const deployable = once(() => api.checkDeployable(sitePath(domain)));
  const deployed = last && { ...last, request: openDeployment(api, domain) };
  if (!deployed) deployable().catch(() => {});
  const listedAtNs = BigInt(Date.now()) * 1_000_000n;
  let folder: CollectedFolder;
  let files: HashedLocalFile[];
  try {
    folder = await collectFolder(root);
    if (folder.files.length === 0) throw new CliError('usage', `There are no files to deploy in ${dir}.`);
    say(`Deploying ${relative(process.cwd(), root) || '.'} to ${pc.bold(domain)}${intent.finalize === 'preview' ? ' as a preview' : ''}`);
    files = await hashFolder(folder.files, cache);
  } catch (error) {
    deployed?.request.cancel();
    throw error;
  }
  // The hashes, written while the service handles the deploy (their 5 ms of CPU before the
  // request would delay it); what the target holds, once it succeeded.
  const save = once(() => cache.save(files, listedAtNs, target));
  let published: Published;
  try {
    const whileWaiting = () => void save();
    published = await publish(api, domain, files, { intent, deployed, deployable, whileWaiting, json: options.json, say });
  } finally {
    await save();
  }
  const { outcome } = published;
  // A live deploy's answer (also its event) links to its preview URL; an alias's comes with the
  // deployment, asked for while the record of this deploy is written (as is the preview URL from a
  // service that does not link it).
  const asked = 'type' in outcome && (intent.alias !== undefined || (options.json && !published.previewUrl));
  const [deployment] = await Promise.all([
    'type' in outcome ? (asked ? api.json<Deployment>(deploymentPath(domain, outcome.deploymentId)) : undefined) : outcome,
    cache.deployed(target, 'type' in outcome ? outcome.deploymentId : outcome.id),
  ]);
  const link = await previewShareLink(api, domain, outcome, deployment?.alias ?? undefined);
  report(api, domain, { ...published, deployment, link, files, totalBytes: folder.totalBytes, json: options.json });
}

/**
 * A share link of what a preview or an aliased deploy made, when its host is protected: members
 * open it and send it on (docs/design.md, "Protected sites"). None for a live deploy without an
 * alias (the site is the user's to share), nor when the service mints none.
 */
async function previewShareLink(api: ApiClient, domain: string, outcome: Published['outcome'], alias: string | undefined): Promise<ShareLink | undefined> {
  if ('type' in outcome && alias === undefined) return undefined;
  const target = alias !== undefined ? { alias } : { deployment: 'type' in outcome ? outcome.deploymentId : outcome.id };
  // The deploy is done: a link that cannot be made (an older service, a token that may not mint one) leaves it out.
  const link = await mintShareLink(api, domain, target).catch((error: unknown) => {
    if (error instanceof CliError) return undefined;
    throw error;
  });
  return link?.protected ? link : undefined;
}

/**
 * What a deploy made, for people or, with --json, for scripts: the service's answer (the deploy
 * result, or the preview's deployment) with the deployment's `id`, the site's `url` when it is
 * live, its `previewUrl`, and its `aliasUrl` when it has an alias.
 */
function report(
  api: ApiClient,
  domain: string,
  done: Published & { deployment: Deployment | undefined; link: ShareLink | undefined; files: readonly HashedLocalFile[]; totalBytes: number; json?: boolean },
): void {
  const { outcome, sent, files, deployment, link } = done;
  const url = siteUrl(new URL(api.origin), domain);
  if (done.json) {
    const previewUrl = deployment?.previewUrl ?? done.previewUrl;
    const aliasUrl = deployment?.aliasUrl;
    const urls = { previewUrl, ...(aliasUrl ? { aliasUrl } : {}), ...(link ? { shareUrl: link.url, shareExpiresAt: link.expiresAt } : {}) };
    return printJson('type' in outcome ? { id: outcome.deploymentId, ...outcome, unchanged: outcome.unchanged === true, url, ...urls } : { ...outcome, ...urls, domain, unchanged: false });
  }
  // Not counted as stored: empty files, and files whose content another file brought.
  const sentHashes = new Set(sent.map((file) => file.hash));
  const stored = files.filter((file) => file.size > 0 && !sentHashes.has(file.hash));
  const transfer = `Uploaded ${count(sent.length, 'file')} (${formatBytes(sizeOf(sent))}); skipped ${count(stored.length, 'file')} (${formatBytes(sizeOf(stored))}) already stored.`;
  const whole = `${count(files.length, 'file')} (${formatBytes(done.totalBytes)})`;
  // Ids and URLs are the server's text: escaped where printed.
  const aliasNote = deployment?.aliasUrl && aliasHostNote(domain, deployment.aliasUrl);
  const alias = deployment?.aliasUrl
    ? [`  Alias ${pc.bold(terminalSafe(deployment.alias!))}: ${pc.cyan(terminalSafe(deployment.aliasUrl))}`, ...(aliasNote ? [pc.dim(`  ${terminalSafe(aliasNote)}`)] : [])]
    : [];
  const lines =
    'type' in outcome
      ? outcome.unchanged
        ? [`${pc.green('✔')} ${pc.bold(domain)} already serves this folder, ${whole}: no new deployment; ${terminalSafe(outcome.deploymentId)} stays live.`]
        : [`${pc.green('✔')} Deployed ${whole} to ${pc.bold(domain)}: ${done.finalizedEarlier ? 'live (the service had finalized it when its answer was lost)' : describe(outcome)}`, `  ${transfer} Deployment ${terminalSafe(outcome.deploymentId)}.`]
      : [
          `${pc.green('✔')} Preview of ${whole} for ${pc.bold(domain)}. The live site is unchanged.`,
          `  ${transfer} Deployment ${terminalSafe(outcome.id)}.`,
          `  ${pc.cyan(terminalSafe(outcome.previewUrl))}`,
        ];
  const live = 'type' in outcome ? [`  ${pc.cyan(url)}`] : [];
  const shared = link ? [`  Previews are for members: share link, until ${terminalSafe(link.expiresAt)} UTC: ${pc.cyan(terminalSafe(link.url))}`] : [];
  console.log([...lines, ...alias, ...live, ...shared].join('\n'));
}
