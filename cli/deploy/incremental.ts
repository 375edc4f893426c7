import { type Answered, type ApiClient, type RequestOptions, answeredOf } from '../api.ts';
import { CliError } from '../errors.ts';
import type { DeployResult, Deployment } from '../../src/common/api-types.ts';
import { ApiError } from '../../src/common/received-problem.ts';
import { type DeployTransport, type PendingDeployment, manifestOf } from '../../src/common/incremental-deploy.ts';
import { sitePath } from '../../src/common/site-paths.ts';
import type { HashedLocalFile } from './hash.ts';
import type { FilesPatch } from './hash-cache.ts';
import { blobsBody, multipartType, newBoundary, type UploadProgress } from './multipart.ts';
import type { BodyWriter } from '../upload.ts';

/**
 * The service drops one first folder that every path of a deploy shares (a browser's directory
 * upload names the chosen folder). Every path goes under this folder, so the service drops
 * exactly it and the site's root is the deployed folder's content, whatever that holds.
 */
const uploadFolder = 'site';

const json = (body: unknown): RequestOptions => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** What becomes of the deployment once the service lacks none of its bytes. */
export type Finalize = 'live' | 'preview';

/** What the deployment is besides its files: its host options (undefined: the live ones), what becomes of it, its message and alias. */
export interface DeploymentIntent {
  configuration: unknown;
  finalize: Finalize;
  message?: string;
  alias?: string;
}

/** The service's answer to a manifest: finalized at once (the deploy result, or the ready preview), or still uploading. */
export type Begun = DeployResult | Deployment;

/**
 * What a deployment is made of: every file of the folder, or the deployment `base` (one this
 * folder made on the site) with `files` merged in (a hash adds or replaces a path, null removes
 * it) and the `sizes` of the contents they add, so that the service refuses a change over its
 * limits before the bytes are sent.
 */
export type DeploymentFiles = readonly HashedLocalFile[] | { base: string; files: FilesPatch; sizes: Record<string, number> };

/**
 * The manifest: every path under the upload folder, or a patch of `base` in the site's own paths
 * (nothing is dropped from a patch's paths); the host options, message and alias if any, and `finalize`.
 */
function manifest(content: DeploymentFiles, { configuration, finalize, message, alias }: DeploymentIntent): object {
  const files = 'base' in content ? content : manifestOf(content.map((file) => ({ ...file, path: `${uploadFolder}/${file.path}` })));
  return { ...files, ...(configuration === undefined ? {} : { configuration }), finalize, ...(message ? { message } : {}), ...(alias ? { alias } : {}) };
}

/** `POST .../deployments` with the manifest: the service answers which hashes it lacks, or, lacking none, finalizes. */
export function createDeployment(api: ApiClient, domain: string, files: DeploymentFiles, intent: DeploymentIntent): Promise<Answered<Begun>> {
  return api.answered<Begun>(sitePath(domain, '/deployments'), json(manifest(files, intent)));
}

/** Whether the service refused a patch because its base is not a deployment the site keeps (any more): a whole manifest will do. */
export function isBaseNotKept(error: unknown): boolean {
  return error instanceof CliError && error.cause instanceof ApiError && error.cause.problem.type === '/problems/base-not-kept';
}

/** A `POST .../deployments` opened before its body is known. */
export interface OpenedDeployment {
  /** Sends the manifest and the bytes of `blobs` (none: the service answers what it lacks); `onSent` once all is on its way. */
  send(files: DeploymentFiles, blobs: readonly HashedLocalFile[], options: { intent: DeploymentIntent; progress: UploadProgress; onSent?: () => void }): Promise<Answered<Begun>>;
  /** Ends the request unsent: the deploy stopped before it had a body. */
  cancel(): void;
}

/**
 * Opens `POST .../deployments` with a multipart body to come: its headers go at once, so the
 * service authenticates and checks the site (and a remote one's connection is set up) while the
 * folder is still being listed and hashed.
 */
export function openDeployment(api: ApiClient, domain: string): OpenedDeployment {
  const boundary = newBoundary();
  let give!: (body: BodyWriter) => void;
  let stop!: (reason: unknown) => void;
  const body = new Promise<BodyWriter>((resolve, reject) => {
    give = resolve;
    stop = reject;
  });
  const answer = api.upload(sitePath(domain, '/deployments'), 'POST', { 'content-type': multipartType(boundary) }, async (write) => (await body)(write));
  // Awaited by `send`; a cancelled deploy has no use for it.
  answer.catch(() => {});
  return {
    async send(files, blobs, { intent, progress, onSent }) {
      const multipart = blobsBody(blobs, progress, JSON.stringify(manifest(files, intent)), boundary);
      give(async (write) => {
        await multipart.write(write);
        // Once the request has ended too (it ends as this writer returns): the service reads the
        // body to its end before it commits, and onSent's work would hold the last chunk back.
        if (onSent) setImmediate(onSent);
      });
      return answeredOf<Begun>(await answer);
    },
    cancel: () => stop(new CliError('failure', 'The deploy stopped before its request had a body.')),
  };
}

/** Whether the service finalized the deployment already. */
export function isFinalized(begun: Begun): begun is DeployResult | (Deployment & { state: 'ready' }) {
  return 'type' in begun || begun.state === 'ready';
}

/**
 * `POST .../deployments/<id>/finalize`: live (the deploy result) or a preview (the deployment).
 * Asked again after a reset: the service answers a finalize it did already as done (docs/api.md),
 * a live one as a deploy of what the site serves already, which `repeated` says it is.
 */
export async function finalizeDeployment(api: ApiClient, domain: string, id: string, finalize: Finalize): Promise<Answered<DeployResult | Deployment> & { repeated: boolean }> {
  const answered = await api.answered<DeployResult | Deployment>(deploymentPath(domain, id, '/finalize'), { ...json(finalize === 'preview' ? { preview: true } : {}), repeatable: true });
  const { body } = answered;
  if (!('type' in body && body.unchanged === true && body.deploymentId === id)) return { ...answered, repeated: false };
  const { unchanged: _done, ...result } = body;
  return { ...answered, body: result, repeated: true };
}

/** `DELETE .../deployments/<id>`: cancels a deployment still uploading (a ready one is a 409, left as it is). */
export async function cancelDeployment(api: ApiClient, domain: string, id: string): Promise<void> {
  const response = await api.request(deploymentPath(domain, id), { method: 'DELETE' });
  await response.body?.cancel();
}

export function deploymentPath(domain: string, id: string, rest = ''): string {
  return sitePath(domain, `/deployments/${encodeURIComponent(id)}${rest}`);
}

/** The blobs' bytes streamed from disk, and a lost connection or a failing service worth asking again after. */
export function cliTransport(api: ApiClient, domain: string, progress: UploadProgress, onResume: (why: string, remainingFiles: number) => void): DeployTransport<HashedLocalFile> {
  return {
    async sendBlobs(id, files) {
      const body = blobsBody(files, progress);
      const headers = { 'content-type': body.contentType, 'content-length': String(body.contentLength) };
      const response = await api.upload(deploymentPath(domain, id, '/blobs'), 'PUT', headers, body.write);
      return (await response.json()) as PendingDeployment;
    },
    deployment: (id) => api.json<PendingDeployment>(deploymentPath(domain, id)),
    isTransient: (error) => error instanceof CliError && error.kind === 'server',
    onResume: (error, remainingFiles) => onResume(error instanceof Error ? error.message : String(error), remainingFiles),
  };
}
