/**
 * A Vitest reporter that prints, after the run, the ten test files that took longest (setup,
 * import and tests together), so the next person sees where the suite's time goes.
 */
import type { Reporter, TestModule } from 'vitest/node';

const shown = 10;

export default class SlowestFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const timed = testModules.map((module) => {
      const { environmentSetupDuration, prepareDuration, collectDuration, setupDuration, duration } = module.diagnostic();
      return { file: `${module.project.name}: ${module.relativeModuleId}`, ms: environmentSetupDuration + prepareDuration + collectDuration + setupDuration + duration };
    });
    const slowest = timed.sort((a, b) => b.ms - a.ms).slice(0, shown);
    if (slowest.length === 0) return;
    const lines = slowest.map(({ file, ms }) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
    process.stdout.write(`\nThe ${slowest.length} slowest test files:\n${lines.join('\n')}\n`);
  }
}
