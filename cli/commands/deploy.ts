import { relative, resolve } from 'node:path';
import pc from 'picocolors';
import { connect } from '../credentials.ts';
import { collectFolder } from '../deploy/collect.ts';
import { multipartBody } from '../deploy/multipart.ts';
import { createProgress } from '../deploy/progress.ts';
import { checkedDomain } from '../domain.ts';
import { CliError } from '../errors.ts';
import { count, printJson } from '../format.ts';
import type { DeployResult } from '../../src/shared/api-types.ts';
import { formatBytes } from '../../src/shared/format-bytes.ts';
import { sitePath } from '../../src/shared/site-paths.ts';
import { siteUrl } from '../../src/shared/site-url.ts';
import { readJsonArgument } from '../input.ts';

export interface DeployOptions {
  domain?: string;
  config?: string;
  json?: boolean;
}

/** The host options file, and the domain it names (used when --domain is not given). */
async function readHostOptions(path: string | undefined): Promise<{ text?: string; domain?: string }> {
  if (path === undefined) return {};
  const options = await readJsonArgument(path, 'host configuration');
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new CliError('usage', `The host configuration in ${path} must be a JSON object.`);
  }
  const { domain } = options as { domain?: unknown };
  return { text: JSON.stringify(options), domain: typeof domain === 'string' ? domain : undefined };
}

function describe(result: DeployResult): string {
  return [
    result.isNewDomain ? 'new site' : 'existing site',
    result.hasNewFiles ? 'files replaced' : pc.dim('files unchanged'),
    result.hasNewConfiguration ? 'configuration replaced' : pc.dim('configuration unchanged'),
  ].join(', ');
}

export async function deploy(dir: string, options: DeployOptions): Promise<void> {
  const hostOptions = await readHostOptions(options.config);
  const named = options.domain ?? hostOptions.domain;
  if (!named) throw new CliError('usage', 'Which domain? Pass --domain example.com (or set "domain" in the --config file).');
  const domain = checkedDomain(named);
  const api = await connect();
  await api.checkDeployable(sitePath(domain));
  const root = resolve(dir);
  const folder = await collectFolder(root);
  if (folder.files.length === 0) throw new CliError('usage', `There are no files to deploy in ${dir}.`);

  if (!options.json) console.error(`Deploying ${relative(process.cwd(), root) || '.'} to ${pc.bold(domain)}`);
  const mode = options.json ? 'silent' : process.stderr.isTTY ? 'bar' : 'lines';
  const progress = createProgress(mode, { files: folder.files.length, bytes: folder.totalBytes });
  const body = multipartBody({ configuration: hostOptions.text, files: folder.files }, progress);
  let result: DeployResult;
  try {
    const headers = { 'content-type': body.contentType, 'content-length': String(body.contentLength) };
    const response = await api.upload(sitePath(domain), 'PUT', headers, body.write);
    result = (await response.json()) as DeployResult;
  } finally {
    progress.stop();
  }

  if (options.json) return printJson(result);
  const summary = `${count(folder.files.length, 'file')} (${formatBytes(folder.totalBytes)})`;
  console.log(`${pc.green('✔')} Deployed ${summary} to ${pc.bold(result.domain)}: ${describe(result)}`);
  console.log(`  ${pc.cyan(siteUrl(new URL(api.origin), result.domain))}`);
}
