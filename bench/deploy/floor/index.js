const partBytes = 5 * 1024 * 1024;

export default {
  /**
   * `/`: reads the whole body, keeping nothing but its length (the transfer floor).
   * `/store`: reads it the same way and writes its bytes to R2 as one object in 5 MiB multipart
   * parts, two uploading at a time, each part's buffer reused once its upload ended, as a deploy's
   * pack is written: the least work any deploy does, so deploy ÷ this floor shows what the deploy
   * adds beyond moving and storing the bytes.
   */
  async fetch(request, env) {
    if (new URL(request.url).pathname !== '/store') {
      let bytes = 0;
      if (request.body) for await (const chunk of request.body) bytes += chunk.byteLength;
      return Response.json({ bytes });
    }
    const upload = await env.FILES.createMultipartUpload(`floor/${crypto.randomUUID()}`);
    const parts = [];
    const inFlight = [];
    let part = new Uint8Array(partBytes);
    let filled = 0;
    let bytes = 0;
    const send = async (length) => {
      let spare;
      if (inFlight.length === 2) {
        const oldest = inFlight.shift();
        await oldest.uploaded;
        spare = oldest.buffer;
      }
      const uploaded = upload.uploadPart(parts.length + 1, part.subarray(0, length));
      parts.push(uploaded);
      inFlight.push({ uploaded, buffer: part });
      part = spare ?? new Uint8Array(partBytes);
      filled = 0;
    };
    for await (const chunk of request.body ?? []) {
      bytes += chunk.byteLength;
      for (let from = 0; from < chunk.byteLength; ) {
        const length = Math.min(chunk.byteLength - from, partBytes - filled);
        part.set(chunk.subarray(from, from + length), filled);
        filled += length;
        from += length;
        if (filled === partBytes) await send(filled);
      }
    }
    if (filled > 0 || parts.length === 0) await send(filled);
    await upload.complete(await Promise.all(parts));
    return Response.json({ bytes });
  },
};
