// The Worker's build (wrangler.toml's `[build] command`, run before `wrangler dev` and `wrangler
// deploy`; the workers tests and `npm run typecheck` run it first too): the modules the Worker
// imports that are made from other sources. The dashboard (dashboard/dist/files.ts), and the
// packed CLI (build/cli-package.ts).
import { buildCliModule } from './build-cli-module.mjs';

await Promise.all([import('../dashboard/build.mjs'), buildCliModule()]);
