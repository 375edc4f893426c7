#!/usr/bin/env node
// The `sitehost` command: run from a checkout by bin/sitehost.mjs, and bundled as the package's
// bin by scripts/pack-cli.mjs. Commands load their code only when they run (program.ts).
import module from 'node:module';

// Node's on-disk cache of compiled modules (Node 22.1 and later): runs after the first start faster.
module.enableCompileCache?.();
const { main } = await import('./main.ts');
await main(process.argv.slice(2));
