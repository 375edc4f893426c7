import fc from 'fast-check';
import { sha256Hex } from '../../support/deployments';
import { type Mutation, type Part, boundary, contentType, mutate, mutation, serialise } from './multipart';
import { awkwardString, fileName, plainPath } from './strings';

/** How a blob part names its bytes: rightly, by another file's hash, by no hash at all, or with bytes that hash otherwise. */
type BlobNaming = 'right' | 'other' | 'garbage' | 'forged';

/**
 * A one-request incremental deploy to fuzz (`POST .../deployments`, multipart): a manifest part
 * (well formed or not) and blob parts, in order or not, then byte-level damage. Hashes are
 * computed when the body is built (WebCrypto is asynchronous): see `incrementalBody`.
 */
export interface IncrementalCase {
  boundary: string;
  contentType: string;
  files: { name: string; content: string }[];
  finalize: unknown;
  /** A whole manifest, or a patch of the live deployment, of one the site does not keep, or of an odd value. */
  base: { kind: 'none' | 'live' | 'unknown' } | { kind: 'odd'; value: unknown };
  /** In a patch: paths removed (null). */
  removed: string[];
  /** Declared sizes: none, the contents' own, each over any limit, or an odd value. */
  sizes: { kind: 'none' | 'right' | 'huge' } | { kind: 'odd'; value: unknown };
  /** The deployment's `message` and `alias` members: absent, hostile text, or odd values. */
  labels: { message?: unknown; alias?: unknown };
  manifest: 'right' | 'json' | 'text';
  oddManifest: string;
  blobs: { file: number; naming: BlobNaming; headers: 'plain' | 'no-filename' | 'other-name' }[];
  manifestLast: boolean;
  closed: boolean;
  mutations: Mutation[];
}

/** Mostly well framed (the deploy's fuzzing covers framing): the manifest, its blobs and finalize are what is aimed at. */
const framing = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[0-9A-Za-z_-]{1,40}$/).map((actual) => ({ actual, contentType: fc.constant(`multipart/form-data; boundary=${actual}`) })) },
  { weight: 1, arbitrary: boundary.map((actual) => ({ actual, contentType: contentType(actual) })) },
);

export const incrementalCase: fc.Arbitrary<IncrementalCase> = framing.chain(({ actual, contentType }) =>
  fc.record({
    boundary: fc.constant(actual),
    contentType,
    // Mostly names a deploy accepts, so that the blobs and finalize are reached.
    files: fc.array(fc.record({ name: fc.oneof({ weight: 12, arbitrary: plainPath }, { weight: 1, arbitrary: fileName }), content: fc.string({ maxLength: 32 }) }), { maxLength: 5 }),
    finalize: fc.oneof(
      { weight: 6, arbitrary: fc.constant<unknown>('live') },
      { weight: 3, arbitrary: fc.constant<unknown>('preview') },
      { weight: 2, arbitrary: fc.constant<unknown>(undefined) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>('now', 1, null, true) },
    ),
    base: fc.oneof(
      { weight: 6, arbitrary: fc.constant<IncrementalCase['base']>({ kind: 'none' }) },
      { weight: 4, arbitrary: fc.constant<IncrementalCase['base']>({ kind: 'live' }) },
      { weight: 1, arbitrary: fc.constant<IncrementalCase['base']>({ kind: 'unknown' }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value): IncrementalCase['base'] => ({ kind: 'odd', value })) },
    ),
    removed: fc.array(fc.oneof(fc.constantFrom('index.html', 'css/a.css', 'data.bin', 'missing.html'), plainPath), { maxLength: 2 }),
    sizes: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom<IncrementalCase['sizes']>({ kind: 'none' }, { kind: 'right' }) },
      { weight: 1, arbitrary: fc.constant<IncrementalCase['sizes']>({ kind: 'huge' }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value): IncrementalCase['sizes'] => ({ kind: 'odd', value })) },
    ),
    labels: fc.record(
      {
        message: fc.oneof({ weight: 3, arbitrary: awkwardString }, { weight: 1, arbitrary: fc.string({ minLength: 990, maxLength: 1010 }) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
        alias: fc.oneof({ weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9](?:-?[a-z0-9]){0,40}$/) }, { weight: 2, arbitrary: awkwardString }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
      },
      { requiredKeys: [] },
    ),
    manifest: fc.oneof({ weight: 8, arbitrary: fc.constant<IncrementalCase['manifest']>('right') }, { weight: 1, arbitrary: fc.constantFrom<IncrementalCase['manifest']>('json', 'text') }),
    oddManifest: fc.oneof(fc.json({ maxDepth: 3 }), awkwardString),
    blobs: fc.array(
      fc.record({
        file: fc.nat(4),
        naming: fc.oneof({ weight: 20, arbitrary: fc.constant<BlobNaming>('right') }, { weight: 1, arbitrary: fc.constantFrom<BlobNaming>('other', 'garbage', 'forged') }),
        headers: fc.oneof(
          { weight: 20, arbitrary: fc.constant<IncrementalCase['blobs'][number]['headers']>('plain') },
          { weight: 1, arbitrary: fc.constantFrom<IncrementalCase['blobs'][number]['headers']>('no-filename', 'other-name') },
        ),
      }),
      { maxLength: 6 },
    ),
    manifestLast: fc.oneof({ weight: 10, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    closed: fc.oneof({ weight: 10, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    mutations: fc.oneof({ weight: 4, arbitrary: fc.constant<Mutation[]>([]) }, { weight: 1, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) }),
  }),
);

/** The body of `fuzzed`, its hashes computed; `liveDeploymentId` is the base of a patch of the live deployment. */
export async function incrementalBody(fuzzed: IncrementalCase, liveDeploymentId: string): Promise<Uint8Array> {
  const hashes = await Promise.all(fuzzed.files.map((file) => sha256Hex(file.content)));
  const files: Record<string, string | null> = Object.fromEntries(fuzzed.files.map((file, index) => [file.name, hashes[index]!]));
  const base = { none: undefined, live: liveDeploymentId, unknown: 'not-a-kept-deployment', odd: 'value' in fuzzed.base ? fuzzed.base.value : undefined }[fuzzed.base.kind];
  if (fuzzed.base.kind !== 'none') for (const path of fuzzed.removed) files[path] = null;
  const sizeOf = (index: number) => (fuzzed.sizes.kind === 'huge' ? 2 ** 40 : new TextEncoder().encode(fuzzed.files[index]!.content).byteLength);
  const sizes = 'value' in fuzzed.sizes ? fuzzed.sizes.value : fuzzed.sizes.kind === 'none' ? undefined : Object.fromEntries(hashes.map((hash, index) => [hash, sizeOf(index)]));
  const manifestText = {
    right: JSON.stringify({
      files,
      ...(base === undefined ? {} : { base }),
      ...(sizes === undefined ? {} : { sizes }),
      ...(fuzzed.finalize === undefined ? {} : { finalize: fuzzed.finalize }),
      ...fuzzed.labels,
    }),
    json: fuzzed.oddManifest,
    text: fuzzed.oddManifest,
  }[fuzzed.manifest];
  const manifest: Part = { headers: ['Content-Disposition: form-data; name="manifest"', 'Content-Type: application/json'], content: manifestText };
  const blobs = fuzzed.blobs
    .filter((blob) => blob.file < fuzzed.files.length)
    .map((blob): Part => {
      const file = fuzzed.files[blob.file]!;
      const name = { right: hashes[blob.file]!, other: hashes[(blob.file + 1) % hashes.length]!, garbage: file.name, forged: hashes[blob.file]! }[blob.naming];
      const disposition = {
        plain: `Content-Disposition: form-data; name="blob"; filename="${name}"`,
        'no-filename': 'Content-Disposition: form-data; name="blob"',
        'other-name': `Content-Disposition: form-data; name="directory"; filename="${name}"`,
      }[blob.headers];
      return { headers: [disposition], content: blob.naming === 'forged' ? `${file.content}!` : file.content };
    });
  const parts = fuzzed.manifestLast ? [...blobs, manifest] : [manifest, ...blobs];
  return fuzzed.mutations.reduce(mutate, serialise(fuzzed.boundary, parts, fuzzed.closed));
}
