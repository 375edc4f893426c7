import cliProgress from 'cli-progress';
import { count, formatBytes } from '../format.ts';
import type { UploadProgress } from './multipart.ts';

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

/** For logs (CI): one line per tenth of the upload instead of a redrawn bar. */
function lineProgress(totals: Totals, out: NodeJS.WriteStream): DeployProgress {
  let sent = 0;
  let filesDone = 0;
  let reportedTenths = 0;
  out.write(`Uploading ${count(totals.files, 'file')} (${formatBytes(totals.bytes)})\n`);
  const report = () => {
    const tenths = totals.bytes === 0 ? 10 : Math.floor((sent / totals.bytes) * 10);
    if (tenths <= reportedTenths || tenths >= 10) return;
    reportedTenths = tenths;
    out.write(`  ${tenths * 10}% (${formatBytes(sent)}, ${filesDone} of ${totals.files} files)\n`);
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
