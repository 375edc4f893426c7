import { relative, resolve } from 'node:path';
import pc from 'picocolors';
import { connect } from '../credentials.ts';
import { collectFolder } from '../deploy/collect.ts';
import { hashFolder } from '../deploy/hash.ts';
import { cliTransport, createDeployment, finalizeDeployment } from '../deploy/incremental.ts';
import { createProgress } from '../deploy/progress.ts';
import { checkedDomain } from '../domain.ts';
import { CliError } from '../errors.ts';
import { count, printJson } from '../format.ts';
import type { DeployResult } from '../../src/common/api-types.ts';
import { formatBytes } from '../../src/common/format-bytes.ts';
import { filesToSend, sendMissing } from '../../src/common/incremental-deploy.ts';
import { sitePath } from '../../src/common/site-paths.ts';
import { siteUrl } from '../../src/common/site-url.ts';
import { readJsonArgument } from '../input.ts';

export interface DeployOptions {
  domain?: string;
  config?: string;
  preview?: boolean;
  json?: boolean;
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

const sizeOf = (files: readonly { size: number }[]) => files.reduce((sum, file) => sum + file.size, 0);

/**
 * Deploys incrementally: hashes the folder, sends the manifest, uploads only the content the
 * service lacks (in bounded batches, resuming after a lost connection), then finalizes.
 */
export async function deploy(dir: string, options: DeployOptions): Promise<void> {
  const hostOptions = await readHostOptions(options.config);
  const named = options.domain ?? hostOptions.domain;
  if (!named) throw new CliError('usage', 'Which domain? Pass --domain example.com (or set "domain" in the --config file).');
  const domain = checkedDomain(named);
  const api = await connect();
  // Asked while the folder is read and hashed: a refusal still comes before any byte of it is sent.
  const deployable = api.checkDeployable(sitePath(domain));
  deployable.catch(() => {});
  const root = resolve(dir);
  const folder = await collectFolder(root);
  if (folder.files.length === 0) throw new CliError('usage', `There are no files to deploy in ${dir}.`);

  const say = (line: string) => {
    if (!options.json) process.stderr.write(`${line}\n`);
  };
  say(`Deploying ${relative(process.cwd(), root) || '.'} to ${pc.bold(domain)}`);
  const files = await hashFolder(folder.files);
  await deployable;
  const pending = await createDeployment(api, domain, files, hostOptions.options);
  const toSend = filesToSend(files, pending.missing ?? []);
  const sendBytes = sizeOf(toSend);
  const skipped = `skipped ${count(files.length - toSend.length, 'file')} (${formatBytes(folder.totalBytes - sendBytes)}) already stored`;

  if (toSend.length === 0) {
    say(`Nothing to upload: the service has every file already; publishing…`);
  } else {
    const mode = options.json ? 'silent' : process.stderr.isTTY ? 'bar' : 'lines';
    const progress = createProgress(mode, { files: toSend.length, bytes: sendBytes });
    const resumed = (why: string, remaining: number) => say(`The upload was interrupted (${why}); resuming with ${count(remaining, 'file')} still to send…`);
    try {
      await sendMissing(pending.id, toSend, cliTransport(api, domain, progress, resumed));
      progress.onComplete();
    } finally {
      progress.stop();
    }
  }

  if (options.preview) {
    const deployment = await finalizeDeployment(api, domain, pending.id, true);
    if (options.json) return printJson(deployment);
    console.log(`${pc.green('✔')} Preview of ${count(files.length, 'file')} (${formatBytes(folder.totalBytes)}) for ${pc.bold(domain)}; ${skipped}. The live site is unchanged.`);
    console.log(`  ${pc.cyan(deployment.previewUrl)}`);
    return;
  }
  const result = await finalizeDeployment(api, domain, pending.id, false);
  if (options.json) return printJson(result);
  console.log(`${pc.green('✔')} Deployed ${count(files.length, 'file')} (${formatBytes(folder.totalBytes)}) to ${pc.bold(result.domain)}: ${describe(result)}`);
  console.log(`  Uploaded ${count(toSend.length, 'file')} (${formatBytes(sendBytes)}); ${skipped}. Deployment ${result.deploymentId}.`);
  console.log(`  ${pc.cyan(siteUrl(new URL(api.origin), result.domain))}`);
}
