/** What the Worker hands a domain's coordinator to commit: ./coordinator.ts's changes take these. */
import type { HostConfiguration } from '../configuration/parse';
import type { DeploymentLabels } from '../content/label-checks';
import type { ManifestContent } from '../content/manifest';
import type { BlobLocation } from '../storage/deployments-table';
import type { FileEntry } from '../storage/file-index';
import type { Deployment } from '../storage/sites-table';
import type { StoredObject } from '../storage/usage-ledger';

/** A deploy whose files (if any) are already stored, waiting to become a deployment. */
export interface DeployCommit {
  domain: string;
  userId: string;
  /** Whether the caller's credential may claim the domain should no site hold it (./access/access.ts `Requester.claims`). */
  claims: boolean;
  /**
   * `blobs`: where the stored bytes lie, by content hash, for later incremental deploys; `written`:
   * the objects the deploy stored (its pack, when it wrote one, and its index), with their sizes.
   */
  files?: Omit<Deployment, 'created'> & { blobs: BlobLocation[]; written: StoredObject[]; rulesRoot: string };
  configuration?: HostConfiguration;
  labels: DeploymentLabels;
}

/** A replacement of the whole value, or an RFC 7396 merge patch applied to the current one. */
export type Edit<T> = { replace: T } | { patch: unknown };

/** One file already stored in `packKey` (null when it is empty), waiting to join the live deployment. */
export interface FileUpload {
  entry: Omit<FileEntry, 'pack'>;
  packKey: string | null;
}

/** Blobs of an incremental deploy, verified and stored in `pack`, waiting to be recorded. */
export interface BlobUpload {
  domain: string;
  userId: string;
  claims: boolean;
  deploymentId: string;
  pack: string;
  /** The pack's size as stored. */
  packBytes: number;
  blobs: BlobLocation[];
}

/** The blobs a request brought in `pack`: stored by the Worker, or, small and committed at once, its `bytes` for the coordinator to store. */
export interface PackUpload {
  pack: string;
  /** The pack's size as stored, or to be stored. */
  packBytes: number;
  blobs: BlobLocation[];
  bytes?: Uint8Array;
}

/** An incremental deploy that lacks no bytes, to be committed at once: its manifest, and the blobs its request brought in `upload.pack`. */
export interface ManifestCommit {
  domain: string;
  userId: string;
  claims: boolean;
  deploymentId: string;
  /** A patch's base must still be kept when the coordinator commits it: its files keep their places and times. */
  content: ManifestContent;
  upload?: PackUpload;
  preview: boolean;
  labels: DeploymentLabels;
}
