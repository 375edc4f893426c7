// The workers project's global setup (it runs in Node): the Worker imports the built dashboard
// (dashboard/dist/files.ts), so it is built before the tests load the Worker.
import { execFileSync } from 'node:child_process';

export default function buildDashboard() {
  execFileSync(process.execPath, ['dashboard/build.mjs'], { stdio: 'inherit' });
}
