// The workers project's global setup (it runs in Node): the Worker imports modules built from
// other sources (the dashboard's dashboard/dist/files.ts, the packed CLI's build/cli-package.ts),
// so they are built before the tests load the Worker.
import { execFileSync } from 'node:child_process';

export default function buildWorkerModules() {
  execFileSync(process.execPath, ['scripts/build-worker.mjs'], { stdio: 'inherit' });
}
