/**
 * The body bytes a response hands over, for traffic counting (src/traffic/counting.ts): its
 * `Content-Length`, or what the code that made it noted when it has none (a file the platform
 * compresses on its way out counts the file's own bytes; a built-in page, its text's).
 */
const noted = new WeakMap<Response, number>();

export function noteBodyBytes(response: Response, bytes: number): Response {
  noted.set(response, bytes);
  return response;
}

export function bodyBytesOf(response: Response): number {
  const length = response.headers.get('content-length');
  return length !== null ? Number(length) || 0 : (noted.get(response) ?? 0);
}
