import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const repo = new URL('../../..', import.meta.url).pathname;
const launcher = join(repo, 'bin/sitehost.mjs');
const peakRssReporter = new URL('./peak-rss.mjs', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The CLI process's peak resident set size in KiB, when asked for. */
  peakRssKiB?: number;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  stdin?: string;
  measurePeakRss?: boolean;
}

/** Runs the real CLI (`node bin/sitehost.mjs …`), not on a terminal, with colours off. */
export async function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  const measureDir = options.measurePeakRss ? await mkdtemp(join(tmpdir(), 'sitehost-rss-')) : undefined;
  const rssFile = measureDir && join(measureDir, 'peak-rss');
  const nodeArgs = rssFile ? ['--import', peakRssReporter] : [];
  const child = spawn(process.execPath, [...nodeArgs, launcher, ...args], {
    cwd: options.cwd ?? repo,
    env: { ...process.env, NO_COLOR: '1', ...options.env, ...(rssFile ? { SITEHOST_TEST_PEAK_RSS_FILE: rssFile } : {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.stdin ?? '');
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  let peakRssKiB: number | undefined;
  if (rssFile && measureDir) {
    peakRssKiB = Number(await readFile(rssFile, 'utf8'));
    await rm(measureDir, { recursive: true, force: true });
  }
  return { code, stdout, stderr, peakRssKiB };
}

/** A CLI run that goes on until stopped (`sitehost events`), read line by line. */
export interface RunningCli {
  /** Resolves with the first stdout line (seen so far or to come) that `matches` accepts. */
  waitForLine(matches: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  stderr(): string;
  stop(): Promise<void>;
}

export function startCli(args: readonly string[], options: RunOptions = {}): RunningCli {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [launcher, ...args], {
    cwd: options.cwd ?? repo,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters) wake();
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    waitForLine(matches, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = lines.find(matches);
          if (line === undefined) return;
          finish();
          resolve(line);
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`No matching line within ${timeoutMs} ms; stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
