// Generates the benchmark's sites on disk: a realistic 2,000-file site (text that compresses
// like real HTML/CSS/JS, images and fonts of incompressible bytes) and a site of equal-sized
// large files. Sizes come from a seeded generator, so every run deploys the same site.
import { randomFillSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Mulberry32: a tiny seeded PRNG (Math.random cannot be seeded). */
function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = (
  'the of and to in is for on with as by at from that this be are it or an was which not have has more all ' +
  'site page deploy static content build release docs guide api index section article header footer nav main ' +
  'button link image style script module function return const let var export import default class extends ' +
  'color margin padding display flex grid border width height font size weight line transform transition'
).split(' ');

/** Kinds of file: how many, which share of the bytes, and how each is named and filled. */
const kinds = [
  { count: 700, share: 0.15, text: true, path: (i) => (i === 0 ? 'index.html' : `docs/section-${i % 40}/page-${i}.html`) },
  { count: 150, share: 0.07, text: true, path: (i) => `assets/css/${['base', 'theme', 'page', 'print'][i % 4]}-${i}.css` },
  { count: 350, share: 0.25, text: true, path: (i) => `assets/js/chunk-${(i * 2654435761 >>> 0).toString(16)}.js` },
  { count: 200, share: 0.03, text: true, path: (i) => `assets/data/${['icon', 'feed', 'data'][i % 3]}-${i}.${['svg', 'xml', 'json'][i % 3]}` },
  { count: 550, share: 0.45, text: false, path: (i) => `images/${2020 + (i % 6)}/photo-${i}.${['jpg', 'png', 'webp'][i % 3]}` },
  { count: 50, share: 0.05, text: false, path: (i) => `assets/fonts/font-${i}.woff2` },
];

function textOfSize(size, random) {
  let text = '';
  while (text.length < size) text += `${words[Math.floor(random() * words.length)]}${random() < 0.1 ? '\n' : ' '}`;
  return Buffer.from(text.slice(0, size));
}

function randomBytesOfSize(size) {
  return randomFillSync(Buffer.allocUnsafe(size));
}

/** Sizes with a long tail (log-normal), scaled so that they add up to `total`. */
function sizes(count, total, random) {
  const raw = Array.from({ length: count }, () => Math.exp(0.8 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())));
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((value) => Math.max(1, Math.round((value / sum) * total)));
}

async function writeFiles(root, files) {
  for (const file of files) {
    await mkdir(dirname(join(root, file.path)), { recursive: true });
    await writeFile(join(root, file.path), file.content);
  }
}

/**
 * A site like a browser's directory upload of `site/`: `fileCount` files (2,000 by default; each
 * kind keeps its share) adding up to `totalBytes`. Returns the files as `{ path, size }`, paths
 * relative to `root` (they start with `site/`).
 */
export async function generateRealisticSite(root, totalBytes, fileCount = 2000) {
  const random = prng(2026);
  const files = [];
  for (const kind of kinds) {
    const kindSizes = sizes(Math.max(1, Math.round((kind.count * fileCount) / 2000)), totalBytes * kind.share, random);
    kindSizes.forEach((size, i) => {
      const path = `site/${kind.path(i)}`;
      const content = kind.text ? textOfSize(size, random) : randomBytesOfSize(size);
      files.push({ path, size, content });
    });
  }
  await writeFiles(root, files);
  return files.map(({ path, size }) => ({ path, size }));
}

/**
 * `count` small pages of text averaging `averageBytes` (from half to one and a half of it), under
 * `small/` in `root`: a site of many small files, whose deploy costs requests and files rather than bytes.
 */
export async function generateSmallFileSite(root, count, averageBytes) {
  const random = prng(1024);
  const files = Array.from({ length: count }, (_, i) => {
    const size = Math.round(averageBytes * (0.5 + random()));
    return { path: `small/section-${i % 40}/page-${i}.html`, size, content: textOfSize(size, random) };
  });
  await writeFiles(root, files);
  return files.map(({ path, size }) => ({ path, size }));
}

/** `count` files of `size` incompressible bytes each. */
export async function generateUniformSite(root, count, size) {
  const files = Array.from({ length: count }, (_, i) => ({ path: `big/part-${i}.bin`, size, content: randomBytesOfSize(size) }));
  await writeFiles(root, files);
  return files.map(({ path }) => ({ path, size }));
}

/** `count` small HTML pages, in memory (a Blob each): small enough not to need files on disk. */
export function smallPages(count) {
  const random = prng(20000);
  return Array.from({ length: count }, (_, i) => ({
    path: `site/section-${i % 50}/page-${i}.html`,
    blob: new Blob([`<!doctype html><title>Page ${i}</title><p>${textOfSize(100 + Math.floor(random() * 900), random)}</p>`]),
  }));
}
