/**
 * A Vitest reporter that prints, after the run, each project's time: from its first file's start
 * to its last file's end (the projects run side by side, so these overlap), and the sum of its
 * files' own times. A project that grew slower shows at once, in `npm test` and in `.ci/run`.
 */
import type { Reporter, TestModule } from 'vitest/node';
import { fileMs } from './slowest-files.ts';

interface Span {
  startMs: number;
  endMs: number;
  files: number;
  fileMs: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export default class ProjectTimes implements Reporter {
  #runStartMs = performance.now();
  readonly #spans = new Map<string, Span>();

  onTestRunStart(): void {
    this.#runStartMs = performance.now();
    this.#spans.clear();
  }

  onTestModuleQueued(module: TestModule): void {
    const now = performance.now() - this.#runStartMs;
    const span = this.#spans.get(module.project.name);
    if (span) span.startMs = Math.min(span.startMs, now);
    else this.#spans.set(module.project.name, { startMs: now, endMs: now, files: 0, fileMs: 0 });
  }

  onTestModuleEnd(module: TestModule): void {
    const span = this.#spans.get(module.project.name);
    if (!span) return;
    span.endMs = Math.max(span.endMs, performance.now() - this.#runStartMs);
    span.files += 1;
    span.fileMs += fileMs(module);
  }

  onTestRunEnd(): void {
    if (this.#spans.size === 0) return;
    const lines = [...this.#spans].sort(([a], [b]) => a.localeCompare(b)).map(
      ([name, span]) =>
        `${name.padEnd(8)} ${seconds(span.endMs - span.startMs).padStart(8)}  (${seconds(span.startMs)} to ${seconds(span.endMs)} of the run; ${span.files} files, ${seconds(span.fileMs)} of file time)`,
    );
    process.stdout.write(`\nEach project's time:\n${lines.join('\n')}\n`);
  }
}
