/**
 * The service names its version on every answer of the API host in this header (and in `GET
 * /v2/info`); the CLI compares its own with it (cli/version-check.ts).
 */
export const versionHeader = 'sitehost-version';

/** `major.minor.patch`, with an optional `-prerelease`: the versions this project gives itself. */
const release = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

/**
 * Whether `version` is older than `than`, by Semantic Versioning's precedence (a prerelease
 * before its release; prereleases compared by their dot-separated identifiers). Undefined when
 * either is not such a version: no warning is better than a wrong one.
 */
export function isOlderVersion(version: string, than: string): boolean | undefined {
  const [mine, theirs] = [release.exec(version), release.exec(than)];
  if (!mine || !theirs) return undefined;
  for (let part = 1; part <= 3; part += 1) {
    const difference = Number(mine[part]) - Number(theirs[part]);
    if (difference !== 0) return difference < 0;
  }
  return comparePrereleases(mine[4], theirs[4]) < 0;
}

function comparePrereleases(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const [left, right] = [a.split('.'), b.split('.')];
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const [x, y] = [left[index], right[index]];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const [xNumeric, yNumeric] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (xNumeric && yNumeric) return Number(x) - Number(y);
    if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}
