import { createRequire } from 'node:module';
import { formatBytes } from '../../src/common/format-bytes.ts';
import { count } from '../format.ts';
import type { UploadProgress } from './multipart.ts';

/** cli-progress, loaded for a bar only: it takes 2.5 ms of a run that shows none (a --json run, CI). */
const loadCliProgress = (): typeof import('cli-progress') => createRequire(import.meta.url)('cli-progress');

export interface Totals {
  files: number;
  bytes: number;
}

/** Shows an upload's progress. */
export interface DeployProgress extends UploadProgress {
  /** Ends the display, also when the upload failed. */
  stop(): void;
}

type ProgressMode = 'bar' | 'lines' | 'silent';

export function createProgress(mode: ProgressMode, totals: Totals, out: NodeJS.WriteStream = process.stderr): DeployProgress {
  if (mode === 'bar') return barProgress(totals, out);
  if (mode === 'lines') return lineProgress(totals, out);
  return { onBytes() {}, onFileDone() {}, onComplete() {}, stop() {} };
}

function barProgress(totals: Totals, out: NodeJS.WriteStream): DeployProgress {
  const cliProgress = loadCliProgress();
  const bar = new cliProgress.SingleBar(
    {
      stream: out,
      format: 'Uploading {bar} {percentage}% | {sent} of {size} | {filesDone}/{files} files | ETA {eta_formatted}',
      clearOnComplete: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let sent = 0;
  let filesDone = 0;
  const payload = () => ({ sent: formatBytes(sent), size: formatBytes(totals.bytes), filesDone, files: totals.files });
  // A bar needs a non-zero total: a folder of empty files counts as one byte, reached at the end.
  bar.start(Math.max(totals.bytes, 1), 0, payload());
  return {
    onBytes(bytes) {
      sent += bytes;
      bar.update(sent, payload());
    },
    onFileDone() {
      filesDone += 1;
      bar.update(sent, payload());
    },
    onComplete() {
      bar.update(Math.max(totals.bytes, 1), payload());
      bar.stop();
      out.write(`Uploaded ${count(totals.files, 'file')} (${formatBytes(totals.bytes)}); publishing…\n`);
    },
    stop() {
      bar.stop();
    },
  };
}

/** Between quarters, a line after this long without one, to show that a slow upload is alive. */
const quietLineMs = 30_000;

/** For logs (CI): a few lines, at each quarter of the upload, instead of a redrawn bar. */
function lineProgress(totals: Totals, out: NodeJS.WriteStream): DeployProgress {
  let sent = 0;
  let filesDone = 0;
  let reportedQuarters = 0;
  let lastLineAt = Date.now();
  out.write(`Uploading ${count(totals.files, 'file')} (${formatBytes(totals.bytes)})\n`);
  const report = () => {
    if (totals.bytes === 0 || sent >= totals.bytes) return;
    const percent = Math.floor((sent / totals.bytes) * 100);
    const quarters = Math.floor(percent / 25);
    const now = Date.now();
    if (quarters <= reportedQuarters && now - lastLineAt < quietLineMs) return;
    reportedQuarters = Math.max(quarters, reportedQuarters);
    lastLineAt = now;
    out.write(`  ${percent}% (${formatBytes(sent)}, ${filesDone} of ${totals.files} files)\n`);
  };
  return {
    onBytes(bytes) {
      sent += bytes;
      report();
    },
    onFileDone() {
      filesDone += 1;
      report();
    },
    onComplete() {
      out.write(`Uploaded ${count(totals.files, 'file')} (${formatBytes(totals.bytes)}); publishing…\n`);
    },
    stop() {},
  };
}
