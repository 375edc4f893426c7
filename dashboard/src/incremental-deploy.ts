import type { DeployResult, Deployment } from '../../src/common/api-types';
import {
  type HashedFile,
  type PendingDeployment,
  filesToSend,
  hashFiles,
  manifestOf,
  sendMissing,
  sha256Hex,
} from '../../src/common/incremental-deploy';
import { ApiError } from '../../src/common/received-problem';
import { sitePath } from '../../src/common/site-paths';
import { request } from './api';
import type { DeploymentChoice } from './deployment-fields';
import type { SelectedFile } from './folder';
import { ConnectionLostError, sendWithProgress } from './upload';

type HashedSelection = HashedFile & { file: File };

export interface DeployProgress {
  /** The folder is being hashed. */
  onHashing(files: number): void;
  /** The service said what it lacks: `send` of the files are to be sent, the rest are skipped. */
  onPlan(plan: UploadPlan): void;
  /** File bytes sent so far, of the plan's `sendBytes`. */
  onBytes(sent: number): void;
}

export interface UploadPlan {
  sendFiles: number;
  sendBytes: number;
  skippedFiles: number;
  skippedBytes: number;
}

const deploymentPath = (domain: string, id: string, rest = '') => sitePath(domain, `/deployments/${encodeURIComponent(id)}${rest}`);

/** What a deploy made: the deploy result of a live one, or the preview's deployment. */
export type DeployOutcome = DeployResult | Deployment;

/**
 * Deploys a chosen folder incrementally: hashes every file with WebCrypto, sends the manifest
 * (with the deployment's alias and message), uploads only what the service lacks
 * (XMLHttpRequest, for progress; in bounded batches, resuming after a lost connection), then
 * finalizes it, live or as a preview.
 */
export async function deployFolder(
  domain: string,
  selected: readonly SelectedFile[],
  configuration: unknown,
  choice: DeploymentChoice,
  progress: DeployProgress,
  signal: AbortSignal,
): Promise<{ result: DeployOutcome; plan: UploadPlan }> {
  // Paths as the browser names them (`my-site/css/a.css`): the service drops the common top folder.
  const files = selected.map(({ file, path }) => ({ file, path, size: file.size }));
  progress.onHashing(files.length);
  // Two at a time: each file is read whole into memory to be hashed.
  const hashed: HashedSelection[] = await hashFiles(files, async ({ file }) => sha256Hex(await file.arrayBuffer()), 2);
  signal.throwIfAborted();
  // With "finalize", a folder the service holds entirely is finalized in this one request.
  const { preview, ...labels } = choice;
  const body = { ...manifestOf(hashed), ...(configuration === undefined ? {} : { configuration }), ...labels, finalize: preview ? 'preview' : 'live' };
  const begun = await request<DeployOutcome>('POST', sitePath(domain, '/deployments'), { json: body });
  const totalBytes = hashed.reduce((sum, file) => sum + file.size, 0);
  if ('type' in begun || begun.state === 'ready') {
    const plan = { sendFiles: 0, sendBytes: 0, skippedFiles: hashed.length, skippedBytes: totalBytes };
    progress.onPlan(plan);
    return { result: begun, plan };
  }
  const pending = begun;
  const toSend = filesToSend(hashed, pending.missing ?? []);
  const sendBytes = toSend.reduce((sum, file) => sum + file.size, 0);
  const plan = { sendFiles: toSend.length, sendBytes, skippedFiles: hashed.length - toSend.length, skippedBytes: totalBytes - sendBytes };
  progress.onPlan(plan);

  let confirmed = 0;
  await sendMissing(pending.id, toSend, {
    async sendBlobs(id, batch) {
      signal.throwIfAborted();
      const form = new FormData();
      for (const { file, hash } of batch) form.append('blob', file, hash);
      const batchBytes = batch.reduce((sum, file) => sum + file.size, 0);
      const upload = sendWithProgress<PendingDeployment>('PUT', deploymentPath(domain, id, '/blobs'), form, (sent, total) =>
        progress.onBytes(confirmed + Math.round((sent / total) * batchBytes)),
      );
      const abort = () => upload.abort();
      signal.addEventListener('abort', abort);
      try {
        const answer = await upload.done;
        confirmed += batchBytes;
        return answer;
      } finally {
        signal.removeEventListener('abort', abort);
      }
    },
    deployment: (id) => request<PendingDeployment>('GET', deploymentPath(domain, id)),
    isTransient: (error) => error instanceof ConnectionLostError || (error instanceof ApiError && error.status >= 500),
  });
  progress.onBytes(sendBytes);
  const result = await request<DeployOutcome>('POST', deploymentPath(domain, pending.id, '/finalize'), { json: preview ? { preview } : {} });
  return { result, plan };
}
