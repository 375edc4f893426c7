#!/usr/bin/env node
// Launcher from a checkout: the CLI is TypeScript that Node runs directly (type stripping), so no
// build step. The package that installs anywhere ships it compiled (npm run pack:cli, docs/cli.md).
import module from 'node:module';

if (!process.features.typescript) {
  console.error(`sitehost from a checkout needs Node.js 22.18 or later (it runs TypeScript directly); this is Node.js ${process.version}. The installed package (docs/cli.md) runs on Node.js 20.`);
  process.exit(1);
}
// Before the first TypeScript module loads: after the first run, none needs the TypeScript
// stripper, which saves about 25 MB of memory (cli/entry.ts enables it too, for the package).
module.enableCompileCache?.();
await import('../cli/entry.ts');
