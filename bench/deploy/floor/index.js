export default {
  /** Reads the whole body, keeping nothing but its length. */
  async fetch(request) {
    let bytes = 0;
    if (request.body) for await (const chunk of request.body) bytes += chunk.byteLength;
    return Response.json({ bytes });
  },
};
