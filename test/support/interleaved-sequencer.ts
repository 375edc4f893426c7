/**
 * The order the suite's files start in. Vitest starts the projects one after another (its files
 * sorted by project name): the black-box files (`node`), which mostly wait on the services and
 * browsers they drive, all ran first, leaving the 2 cores half idle; then the workers files, which
 * keep both cores busy in workerd, ran alone. Spreading each project's files evenly over the run
 * puts the waiting beside the computing. Within a project the order stays Vitest's own (the
 * slowest first, by the last run or by size).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export class InterleavedSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const projects = new Map<string, TestSpecification[]>();
    for (const file of sorted) {
      const name = file.project.name;
      projects.set(name, [...(projects.get(name) ?? []), file]);
    }
    // Each file at its place in its own project's run (0 first, 1 last); the projects merged by it.
    const placed = [...projects.values()].flatMap((files) => files.map((file, index) => ({ file, at: (index + 0.5) / files.length })));
    return placed.sort((a, b) => a.at - b.at).map(({ file }) => file);
  }
}
