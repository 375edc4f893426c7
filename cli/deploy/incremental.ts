import type { ApiClient } from '../api.ts';
import { CliError } from '../errors.ts';
import type { DeployResult, Deployment } from '../../src/common/api-types.ts';
import { type DeployTransport, type PendingDeployment, manifestOf } from '../../src/common/incremental-deploy.ts';
import { sitePath } from '../../src/common/site-paths.ts';
import type { HashedLocalFile } from './hash.ts';
import { blobsBody, type UploadProgress } from './multipart.ts';

/**
 * The service drops one first folder that every path of a deploy shares (a browser's directory
 * upload names the chosen folder). Every path goes under this folder, so the service drops
 * exactly it and the site's root is the deployed folder's content, whatever that holds.
 */
const uploadFolder = 'site';

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** `POST .../deployments`: the manifest (and host options); answers which hashes the service lacks. */
export function createDeployment(api: ApiClient, domain: string, files: readonly HashedLocalFile[], configuration?: unknown): Promise<PendingDeployment> {
  const manifest = manifestOf(files.map((file) => ({ ...file, path: `${uploadFolder}/${file.path}` })));
  return api.json<PendingDeployment>(sitePath(domain, '/deployments'), json({ files: manifest, ...(configuration === undefined ? {} : { configuration }) }));
}

/** `POST .../deployments/<id>/finalize`: live (the deploy result) or a preview (the deployment). */
export function finalizeDeployment(api: ApiClient, domain: string, id: string, preview: true): Promise<Deployment>;
export function finalizeDeployment(api: ApiClient, domain: string, id: string, preview: false): Promise<DeployResult>;
export function finalizeDeployment(api: ApiClient, domain: string, id: string, preview: boolean): Promise<DeployResult | Deployment> {
  return api.json(deploymentPath(domain, id, '/finalize'), json(preview ? { preview: true } : {}));
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
