/** A file of the built dashboard, as dashboard/build.mjs embeds it in the Worker's bundle. */
export interface BuiltFile {
  contentType: string;
  /** Strong: the SHA-256 of the body. */
  etag: string;
  body: string;
}
