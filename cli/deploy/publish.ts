import type { Answered, ApiClient } from '../api.ts';
import { terminalSafe } from '../../src/common/control-characters.ts';
import { CliError } from '../errors.ts';
import { count } from '../format.ts';
import type { DeployResult, Deployment } from '../../src/common/api-types.ts';
import { filesToSend, sendMissing, sizesOf } from '../../src/common/incremental-deploy.ts';
import type { HashedLocalFile } from './hash.ts';
import { type DeployedRecord, patchBetween } from './hash-cache.ts';
import {
  type Begun,
  type DeploymentFiles,
  type DeploymentIntent,
  cliTransport,
  cancelDeployment,
  createDeployment,
  finalizeDeployment,
  isBaseNotKept,
  isFinalized,
  type OpenedDeployment,
  openDeployment,
} from './incremental.ts';
import { createProgress } from './progress.ts';

export const sizeOf = (files: readonly { size: number }[]) => files.reduce((sum, file) => sum + file.size, 0);

/**
 * The most a deploy sends with its manifest in one request: that request cannot be resumed (a
 * failure stores nothing), so more goes the resumable way, manifest first. 5,000 files as in one
 * blob request: a first deploy of a 2,000-file site of small files fits.
 */
const oneRequestLimits = { bytes: 8 * 1024 * 1024, files: 5000 };

/** How a deploy ended: the service's answer (and the preview URL a live one links to), and the files whose bytes were sent. */
export interface Published {
  outcome: DeployResult | Deployment;
  previewUrl?: string;
  sent: HashedLocalFile[];
  /** The finalize's first answer was lost, and the service answered it done when asked again: the deploy result's flags are unknown. */
  finalizedEarlier?: true;
}

export interface PublishOptions {
  intent: DeploymentIntent;
  /** The last deployment from this folder to the target, and the request opened for its patch. */
  deployed?: DeployedRecord & { request: OpenedDeployment };
  /** What the service would refuse the deploy for, asked before any upload it could refuse mid-way; and whether the site exists. */
  deployable: () => Promise<{ siteExists: boolean }>;
  /** Work to do while the service handles the deploy: called once its first request is sent, or about to be. */
  whileWaiting: () => void;
  json?: boolean;
  say: (line: string) => void;
}

/** A manifest sent with the bytes the service surely lacks, in one request opened for it. */
interface OneRequest {
  content: DeploymentFiles;
  blobs: HashedLocalFile[];
  request: OpenedDeployment;
}

/**
 * The one request a deploy takes when the CLI knows what the service lacks without asking: after
 * a deploy from this folder (`deployed`), what changed since, with the manifest as a patch of that
 * deployment (a larger change sends the patch alone: the service answers what it lacks); to a
 * domain with no site yet, every content of the folder, whose site stores nothing yet, when
 * within `oneRequestLimits`. Otherwise none: the manifest goes first.
 */
async function oneRequest(api: ApiClient, domain: string, files: readonly HashedLocalFile[], options: PublishOptions): Promise<OneRequest | undefined> {
  const within = (blobs: HashedLocalFile[]) => blobs.length <= oneRequestLimits.files && sizeOf(blobs) <= oneRequestLimits.bytes;
  const { deployed } = options;
  if (deployed) {
    const patch = patchBetween(deployed.files, new Map(files.map((file) => [file.path, file.hash])));
    const added = new Set(Object.values(patch));
    const content = { base: deployed.deploymentId, files: patch, sizes: sizesOf(files.filter((file) => added.has(file.hash))) };
    const held = new Set(deployed.files.values());
    const changed = filesToSend(files, new Set(files.filter((file) => file.size > 0 && !held.has(file.hash)).map((file) => file.hash)));
    return { content, blobs: within(changed) ? changed : [], request: deployed.request };
  }
  if ((await options.deployable()).siteExists) return undefined;
  const every = filesToSend(files, new Set(files.filter((file) => file.size > 0).map((file) => file.hash)));
  return within(every) ? { content: files, blobs: every, request: openDeployment(api, domain) } : undefined;
}

/**
 * Sends the manifest and the bytes the service lacks, and finalizes. In one request when the CLI
 * knows what the service lacks (see `oneRequest`); otherwise, or when the service no longer keeps
 * the deployment a patch names, the whole manifest goes first and the service answers what it
 * lacks, sent in resumable batches.
 */
export async function publish(api: ApiClient, domain: string, files: readonly HashedLocalFile[], options: PublishOptions): Promise<Published> {
  const { intent, deployable, say } = options;
  const mode = options.json ? 'silent' : process.stderr.isTTY ? 'bar' : 'lines';
  let content: DeploymentFiles = files;
  let begun: Answered<Begun> | undefined;
  let sent: HashedLocalFile[] = [];
  const single = await oneRequest(api, domain, files, options);
  if (single) {
    content = single.content;
    const progress = createProgress(single.blobs.length > 0 ? mode : 'silent', { files: single.blobs.length, bytes: sizeOf(single.blobs) });
    try {
      const onSent = () => {
        progress.onComplete();
        options.whileWaiting();
      };
      begun = await single.request.send(content, single.blobs, { intent, progress, onSent });
      sent = single.blobs;
    } catch (error) {
      if (isBaseNotKept(error)) {
        // The service read the patch and stored nothing: the whole manifest, manifest first.
        content = files;
      } else {
        // A 429 is an answer (a rate reached), not a lost connection: asking again now is refused again.
        if (!(error instanceof CliError && error.kind === 'server') || error.status === 429) throw error;
        // A refusal may have been lost with the connection; if none, nothing was stored and the resumable way starts over.
        await deployable();
        say(`The upload was interrupted (${terminalSafe(error.message)}); sending the manifest first…`);
      }
    } finally {
      progress.stop();
    }
  }
  if (!begun) {
    await deployable();
    options.whileWaiting();
    // Manifest first; the whole one should the service not keep the base.
    begun = await createDeployment(api, domain, content, intent).catch((error: unknown) => {
      if (content === files || !isBaseNotKept(error)) throw error;
      return createDeployment(api, domain, files, intent);
    });
  }
  if (isFinalized(begun.body)) return { outcome: begun.body, previewUrl: begun.previewUrl, sent };
  const pending = begun.body;
  try {
    const toSend = filesToSend(files, pending.missing ?? []);
    if (toSend.length > 0) {
      const progress = createProgress(mode, { files: toSend.length, bytes: sizeOf(toSend) });
      const resumed = (why: string, remaining: number) => say(`The upload was interrupted (${terminalSafe(why)}); resuming with ${count(remaining, 'file')} still to send…`);
      try {
        await sendMissing(pending.id, toSend, cliTransport(api, domain, progress, resumed));
        progress.onComplete();
      } finally {
        progress.stop();
      }
    }
    const finalized = await finalizeDeployment(api, domain, pending.id, intent.finalize);
    return { outcome: finalized.body, previewUrl: finalized.previewUrl, sent: [...sent, ...toSend], ...(finalized.repeated ? { finalizedEarlier: true as const } : {}) };
  } catch (error) {
    // No later run finishes this upload (each deploy begins its own): cancelled, its bytes stop counting against the user's quota.
    await cancelDeployment(api, domain, pending.id).catch(() => {});
    throw error;
  }
}
