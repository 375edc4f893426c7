// The floors for bench/serve: what the runtime costs per request with no work of a Worker's own.
// `/hello` is a hello-world: the runtime's cost of any answer. Any other path answers the bytes
// of the benchmark's file at that path, from memory, with its Content-Type: the runtime's cost
// of sending that very response. files.js is written by bench/serve/run.mjs next to this file.
import files from './files.js';

/** Blobs: the cheapest body the runtime sends (an ArrayBuffer body is copied per response). */
const bodies = new Map(
  Object.entries(files).map(([path, { type, base64 }]) => [
    path,
    new Blob([Uint8Array.from(atob(base64), (char) => char.charCodeAt(0))], { type }),
  ]),
);

export default {
  fetch(request) {
    const path = new URL(request.url).pathname;
    const body = bodies.get(path);
    if (!body) return new Response('hello world');
    return new Response(body, { headers: { 'content-type': body.type } });
  },
};
