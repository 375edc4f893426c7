/**
 * The order the suite's files start in. Vitest starts the projects one after another (its files
 * sorted by project name): the black-box files (`node`), which mostly wait on the services and
 * browsers they drive, all ran first, leaving the 2 cores half idle; then the workers files, which
 * keep both cores busy in workerd, ran alone. Spreading each project's files evenly over the run
 * puts the waiting beside the computing.
 *
 * Within a project the slowest start first, so that no long file starts near the end and runs on
 * alone: by Vitest's record of the last run on this machine, else by the durations kept in
 * ./file-durations.json (`npm run test:durations`), for a fresh clone has no record and Vitest
 * would go by file size. A file known to neither starts first, as Vitest starts one.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Each file's duration in a full run (ms), by its path from the repository's root. */
const durations: Record<string, number> = JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url).pathname, 'utf8'));

export class InterleavedSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const order = new Map(files.map((file) => [file, this.#expected(file)]));
    const sorted = [...files].sort((a, b) => {
      const [first, second] = [order.get(a)!, order.get(b)!];
      // A file that failed last time first, as Vitest does.
      if (first.failed !== second.failed) return first.failed ? -1 : 1;
      return second.duration - first.duration;
    });
    const projects = new Map<string, TestSpecification[]>();
    for (const file of sorted) {
      const name = file.project.name;
      projects.set(name, [...(projects.get(name) ?? []), file]);
    }
    // Each file at its place in its own project's run (0 first, 1 last); the projects merged by it.
    const placed = [...projects.values()].flatMap((files) => files.map((file, index) => ({ file, at: (index + 0.5) / files.length })));
    return placed.sort((a, b) => a.at - b.at).map(({ file }) => file);
  }

  /** How long `file` is expected to take (ms), and whether it failed the last run here. */
  #expected(file: TestSpecification): { duration: number; failed: boolean } {
    const result = this.ctx.cache.getTestSpecificationResult(file);
    const kept = durations[relative(this.ctx.config.root, file.moduleId)];
    return { duration: result?.duration ?? kept ?? Number.POSITIVE_INFINITY, failed: result?.failed ?? false };
  }
}
