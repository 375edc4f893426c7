/**
 * A Vitest reporter that prints, after the run, the ten test files that took longest (setup,
 * import and tests together), so the next person sees where the suite's time goes.
 */
import type { Reporter, TestModule } from 'vitest/node';

const shown = 10;

/** A file's time: its runtime's set-up, import, set-up files and tests together. */
export function fileMs(module: TestModule): number {
  const { environmentSetupDuration, prepareDuration, collectDuration, setupDuration, duration } = module.diagnostic();
  return environmentSetupDuration + prepareDuration + collectDuration + setupDuration + duration;
}

export default class SlowestFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const timed = testModules.map((module) => ({ file: `${module.project.name}: ${module.relativeModuleId}`, ms: fileMs(module) }));
    const slowest = timed.sort((a, b) => b.ms - a.ms).slice(0, shown);
    if (slowest.length === 0) return;
    const lines = slowest.map(({ file, ms }) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
    process.stdout.write(`\nThe ${slowest.length} slowest test files:\n${lines.join('\n')}\n`);
  }
}
