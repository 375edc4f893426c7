import { apiErrorOf } from '../../src/common/received-problem';
import { authorizationHeader } from './api';

/** The connection dropped before an answer came: asking again may succeed. */
export class ConnectionLostError extends Error {
  constructor() {
    super('The upload failed: the connection to the server was lost.');
    this.name = 'ConnectionLostError';
  }
}

export interface Upload<T> {
  done: Promise<T>;
  abort(): void;
}

/**
 * Sends `body` with XMLHttpRequest rather than fetch: only XHR reports upload progress
 * (bytes sent) in browsers today. Resolves with the parsed JSON answer, rejects with an ApiError,
 * or with an AbortError when aborted.
 */
export function sendWithProgress<T>(method: string, path: string, body: FormData | Blob, onProgress: (sent: number, total: number) => void): Upload<T> {
  const xhr = new XMLHttpRequest();
  const done = new Promise<T>((resolve, reject) => {
    xhr.open(method, path);
    xhr.setRequestHeader('accept', 'application/json');
    for (const [name, value] of Object.entries(authorizationHeader())) xhr.setRequestHeader(name, value);
    if (body instanceof Blob) xhr.setRequestHeader('content-type', body.type || 'application/octet-stream');
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    });
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve((xhr.responseText ? JSON.parse(xhr.responseText) : undefined) as T);
      } else {
        const headers = { 'content-type': xhr.getResponseHeader('content-type') ?? '' };
        apiErrorOf(new Response(xhr.responseText, { status: xhr.status, statusText: xhr.statusText, headers })).then(reject, reject);
      }
    });
    xhr.addEventListener('error', () => reject(new ConnectionLostError()));
    xhr.addEventListener('abort', () => reject(new DOMException('The upload was cancelled.', 'AbortError')));
    xhr.send(body);
  });
  return { done, abort: () => xhr.abort() };
}
