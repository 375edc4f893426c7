import { relative, resolve } from 'node:path';
import pc from 'picocolors';
import { connect } from '../credentials.ts';
import type { ApiClient } from '../api.ts';
import { type CollectedFolder, collectFolder } from '../deploy/collect.ts';
import { type HashedLocalFile, hashFolder } from '../deploy/hash.ts';
import { type DeployedRecord, HashCache, patchBetween } from '../deploy/hash-cache.ts';
import {
  type Begun,
  type DeploymentFiles,
  type Finalize,
  cliTransport,
  createDeployment,
  finalizeDeployment,
  isBaseNotKept,
  isFinalized,
  type OpenedDeployment,
  openDeployment,
} from '../deploy/incremental.ts';
import { createProgress } from '../deploy/progress.ts';
import { checkedDomain } from '../domain.ts';
import { CliError } from '../errors.ts';
import { count, printJson } from '../format.ts';
import type { DeployResult, Deployment } from '../../src/common/api-types.ts';
import { formatBytes } from '../../src/common/format-bytes.ts';
import { filesToSend, sendMissing, sizesOf } from '../../src/common/incremental-deploy.ts';
import { sitePath } from '../../src/common/site-paths.ts';
import { siteUrl } from '../../src/common/site-url.ts';
import { readJsonArgument } from '../input.ts';

export interface DeployOptions {
  domain?: string;
  config?: string;
  preview?: boolean;
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

const sizeOf = (files: readonly { size: number }[]) => files.reduce((sum, file) => sum + file.size, 0);

/**
 * The most a redeploy sends with its manifest in one request: that request cannot be resumed (a
 * failure stores nothing), so a larger change goes the resumable way, manifest first.
 */
const oneRequestLimits = { bytes: 8 * 1024 * 1024, files: 1000 };

/** How a deploy ended: the service's answer, and the files whose bytes were sent. */
interface Published {
  outcome: DeployResult | Deployment;
  sent: HashedLocalFile[];
}

/**
 * Sends the manifest and the bytes the service lacks, and finalizes. When this folder was
 * deployed to the same target before (`deployed`), the manifest is a patch of the deployment made
 * then, and the service lacks what changed since: those bytes go with the manifest, and an
 * unchanged folder or a small change takes one small request. Otherwise, or when the service no
 * longer keeps that deployment, the whole manifest goes first and the service answers what it
 * lacks.
 */
async function publish(
  api: ApiClient,
  domain: string,
  files: readonly HashedLocalFile[],
  options: {
    configuration: unknown;
    finalize: Finalize;
    /** The last deployment from this folder to the target, and the request opened for its patch. */
    deployed?: DeployedRecord & { request: OpenedDeployment };
    /** What the service would refuse the deploy for, asked before any upload it could refuse mid-way. */
    deployable: () => Promise<void>;
    /** Work to do while the service handles the deploy: called once its first request is sent, or about to be. */
    whileWaiting: () => void;
    json?: boolean;
    say: (line: string) => void;
  },
): Promise<Published> {
  const { configuration, finalize, deployed, deployable, say } = options;
  const mode = options.json ? 'silent' : process.stderr.isTTY ? 'bar' : 'lines';
  let content: DeploymentFiles = files;
  let begun: Begun | undefined;
  let sent: HashedLocalFile[] = [];
  if (deployed) {
    const patch = patchBetween(deployed.files, new Map(files.map((file) => [file.path, file.hash])));
    const added = new Set(Object.values(patch));
    content = { base: deployed.deploymentId, files: patch, sizes: sizesOf(files.filter((file) => added.has(file.hash))) };
    const held = new Set(deployed.files.values());
    const changed = filesToSend(files, new Set(files.filter((file) => file.size > 0 && !held.has(file.hash)).map((file) => file.hash)));
    // A larger change sends the manifest alone: the service answers what it lacks.
    const blobs = changed.length <= oneRequestLimits.files && sizeOf(changed) <= oneRequestLimits.bytes ? changed : [];
    const progress = createProgress(blobs.length > 0 ? mode : 'silent', { files: blobs.length, bytes: sizeOf(blobs) });
    try {
      const onSent = () => {
        progress.onComplete();
        options.whileWaiting();
      };
      begun = await deployed.request.send(content, blobs, { configuration, finalize, progress, onSent });
      sent = blobs;
    } catch (error) {
      if (isBaseNotKept(error)) {
        // The service read the patch and stored nothing: the whole manifest, manifest first.
        content = files;
      } else {
        // A 429 is an answer (a rate reached), not a lost connection: asking again now is refused again.
        if (!(error instanceof CliError && error.kind === 'server') || error.status === 429) throw error;
        // A refusal may have been lost with the connection; if none, nothing was stored and the resumable way starts over.
        await deployable();
        say(`The upload was interrupted (${error.message}); sending the manifest first…`);
      }
    } finally {
      progress.stop();
    }
  }
  if (!begun) {
    await deployable();
    options.whileWaiting();
    // Manifest first; the whole one should the service not keep the base.
    begun = await createDeployment(api, domain, content, configuration, finalize).catch((error: unknown) => {
      if (content === files || !isBaseNotKept(error)) throw error;
      return createDeployment(api, domain, files, configuration, finalize);
    });
  }
  if (isFinalized(begun)) return { outcome: begun, sent };

  const toSend = filesToSend(files, begun.missing ?? []);
  if (toSend.length > 0) {
    const progress = createProgress(mode, { files: toSend.length, bytes: sizeOf(toSend) });
    const resumed = (why: string, remaining: number) => say(`The upload was interrupted (${why}); resuming with ${count(remaining, 'file')} still to send…`);
    try {
      await sendMissing(begun.id, toSend, cliTransport(api, domain, progress, resumed));
      progress.onComplete();
    } finally {
      progress.stop();
    }
  }
  return { outcome: await finalizeDeployment(api, domain, begun.id, finalize), sent: [...sent, ...toSend] };
}

/**
 * Deploys incrementally: hashes the folder (reading only files changed since the last deploy
 * from it), sends the manifest and only the content the service lacks, then finalizes.
 */
export async function deploy(dir: string, options: DeployOptions): Promise<void> {
  const hostOptions = await readHostOptions(options.config);
  const named = options.domain ?? hostOptions.domain;
  if (!named) throw new CliError('usage', 'Which domain? Pass --domain example.com (or set "domain" in the --config file).');
  const domain = checkedDomain(named);
  const api = await connect();
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
  const say = (line: string) => {
    if (!options.json) process.stderr.write(`${line}\n`);
  };
  let folder: CollectedFolder;
  let files: HashedLocalFile[];
  try {
    folder = await collectFolder(root);
    if (folder.files.length === 0) throw new CliError('usage', `There are no files to deploy in ${dir}.`);
    say(`Deploying ${relative(process.cwd(), root) || '.'} to ${pc.bold(domain)}`);
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
    const finalize = options.preview ? 'preview' : 'live';
    const whileWaiting = () => void save();
    published = await publish(api, domain, files, { configuration: hostOptions.options, finalize, deployed, deployable, whileWaiting, json: options.json, say });
  } finally {
    await save();
  }

  const { outcome, sent } = published;
  await cache.deployed(target, 'type' in outcome ? outcome.deploymentId : outcome.id);
  if (options.json) return printJson(outcome);
  // Not counted as stored: empty files, and files whose content another file brought.
  const sentHashes = new Set(sent.map((file) => file.hash));
  const stored = files.filter((file) => file.size > 0 && !sentHashes.has(file.hash));
  const transfer = `Uploaded ${count(sent.length, 'file')} (${formatBytes(sizeOf(sent))}); skipped ${count(stored.length, 'file')} (${formatBytes(sizeOf(stored))}) already stored.`;
  const whole = `${count(files.length, 'file')} (${formatBytes(folder.totalBytes)})`;
  if (!('type' in outcome)) {
    console.log(`${pc.green('✔')} Preview of ${whole} for ${pc.bold(domain)}. The live site is unchanged.`);
    console.log(`  ${transfer} Deployment ${outcome.id}.`);
    console.log(`  ${pc.cyan(outcome.previewUrl)}`);
    return;
  }
  console.log(`${pc.green('✔')} Deployed ${whole} to ${pc.bold(outcome.domain)}: ${describe(outcome)}`);
  console.log(`  ${transfer} Deployment ${outcome.deploymentId}.`);
  console.log(`  ${pc.cyan(siteUrl(new URL(api.origin), outcome.domain))}`);
}
