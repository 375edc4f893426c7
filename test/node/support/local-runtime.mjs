// The Worker in Miniflare, the library `wrangler dev` runs it with: the bundle ./bundle-worker.mjs made,
// with wrangler.toml's bindings, local D1, R2, Durable Objects, queues and crons in one workerd, its
// state in wrangler's layout (<persist dir>/v3, as `wrangler dev --persist-to`). Without wrangler's
// Node process, its bundling and its proxy workerd, a start costs a third of `npm start`'s CPU and a
// request about half (CONTRIBUTING.md, "Tests"). Prints `Ready on <origin>` once it serves, then a
// line for each request (`[mf:info] GET /v2/sites 200 OK (3ms)`) and the Worker's logs.
// Usage: SITEHOST_VARS='{"NAME":"value"}' node local-runtime.mjs <bundle folder> <persist dir> <port>
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Log, LogLevel, Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { localWorkerdV8Flags } from '../../../scripts/workerd-flags.mjs';

const [bundleFolder, persistDir, port] = process.argv.slice(2);
const worker = JSON.parse(readFileSync(join(bundleFolder, 'options.json'), 'utf8'));
const vars = JSON.parse(process.env.SITEHOST_VARS ?? '{}');
process.env.MINIFLARE_WORKERD_V8_FLAGS ??= localWorkerdV8Flags;

const miniflare = new Miniflare(
  convertV4MiniflareOptions({
    host: '127.0.0.1',
    port: Number(port),
    log: new Log(LogLevel.INFO),
    logRequests: true,
    // Offline: no fetch of Request.cf's values from Cloudflare (the Worker reads none of them).
    cf: false,
    resourcePersistencePath: join(persistDir, 'v3'),
    // /cdn-cgi/local/scheduled runs the crons' handler (wrangler dev rewrites its /cdn-cgi/handler/ to it).
    unsafeTriggerHandlers: true,
    workers: [
      {
        ...worker,
        modules: true,
        modulesRoot: join(bundleFolder, 'bundle'),
        scriptPath: join(bundleFolder, 'bundle/index.js'),
        bindings: { ...worker.bindings, ...vars },
      },
    ],
  }),
);
console.log(`Ready on ${await miniflare.ready}`);
// Its process group is stopped as a whole (./processes.ts): workerd gets the signal too.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
