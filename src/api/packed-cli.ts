/** The `sitehost` package of the Worker's own tree, as scripts/build-cli-module.mjs embeds it in the Worker's bundle. */
export interface PackedCli {
  /** The package's version, which is the service's (the build refuses two). */
  version: string;
  /** `sitehost-cli-<version>.tgz`. */
  filename: string;
  /** Strong: the SHA-256 of the tarball. */
  etag: string;
  /** As npm writes it in a lockfile: `sha512-<base64>`. */
  integrity: string;
  /** The tarball, base64. */
  base64: string;
}
