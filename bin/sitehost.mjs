#!/usr/bin/env node
// Launcher: the CLI is TypeScript that Node runs directly (type stripping), so no build step.
import module from 'node:module';

if (!process.features.typescript) {
  console.error(`sitehost needs Node.js 22.18 or later (it runs TypeScript directly); this is Node.js ${process.version}.`);
  process.exit(1);
}
// Node's on-disk cache of compiled (and type-stripped) modules: after the first run, startup
// is faster and the TypeScript stripper is not even loaded, which saves about 25 MB of memory.
module.enableCompileCache?.();
const { main } = await import('../cli/main.ts');
await main(process.argv.slice(2));
