import { type TokenOptions, authorized } from './client';
import { sha256Hex } from './deployments';

/** `POST .../deployments`: begins an incremental deploy of `files` (path → SHA-256 hex). */
export function begin(domain: string, files: Record<string, string>, configuration?: unknown, finalize?: 'live' | 'preview') {
  return authorized(`/v2/sites/${domain}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ files, ...(configuration === undefined ? {} : { configuration }), ...(finalize ? { finalize } : {}) }),
  });
}

/** The manifest of `files` (path → content): path → SHA-256 hex. */
export async function manifestOf(files: Record<string, string>): Promise<Record<string, string>> {
  return Object.fromEntries(await Promise.all(Object.entries(files).map(async ([path, content]) => [path, await sha256Hex(content)])));
}

/** A blob part for each of `contents`, named by its hash unless `named` says otherwise. */
export async function blobForm(contents: string[], named?: string): Promise<FormData> {
  const form = new FormData();
  for (const content of contents) form.append('blob', new File([content], named ?? (await sha256Hex(content))));
  return form;
}

export function sendBlobs(domain: string, id: string, body: BodyInit, headers: HeadersInit = {}) {
  return authorized(`/v2/sites/${domain}/deployments/${id}/blobs`, { method: 'PUT', body, headers, duplex: 'half' } as RequestInit);
}

export function finalize(domain: string, id: string, body?: unknown) {
  return authorized(`/v2/sites/${domain}/deployments/${id}/finalize`, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

/** A `PUT .../blobs` of `contents` whose body sends nothing until released, so that requests interleave as a test says. */
export async function heldBlobs(domain: string, id: string, contents: string[], options: TokenOptions = {}) {
  const form = new Response(await blobForm(contents));
  const contentType = form.headers.get('content-type')!;
  const bytes = new Uint8Array(await form.arrayBuffer());
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let pulled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        pulled = true;
        await released;
        controller.enqueue(bytes);
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  const init = { method: 'PUT', body, headers: { 'content-type': contentType }, duplex: 'half' } as RequestInit;
  const answer = authorized(`/v2/sites/${domain}/deployments/${id}/blobs`, init, options);
  /** `pulled`: the request has begun to read its body (it asked what the site stores before). */
  return { answer, release, pulled: () => pulled };
}
