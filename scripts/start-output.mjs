// What `npm start` shows of wrangler dev: nothing until it serves (its banner, bindings, build and
// offline warnings go to a log file only), then every line. An error before it serves, or an exit,
// shows everything wrangler printed, so a failed start is never hidden.
import { mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, relative } from 'node:path';

/** wrangler dev's line once it listens: `[wrangler:info] Ready on http://localhost:8787`. */
const readyLine = /^.*Ready on (\S+).*$/m;
/** wrangler's error lines (`✘ [ERROR] Address already in use …`). */
const errorLine = /^.*\[ERROR\].*$/m;

/** A path as a reader types it: relative to the working folder when inside it. */
export function shown(path) {
  const inside = relative(process.cwd(), path);
  return inside.startsWith('..') ? path : inside || '.';
}

/** A fresh log at `path`, and what follows wrangler dev's output into it. Written synchronously: nothing is lost on exit. */
export function startLog(path) {
  mkdirSync(dirname(path), { recursive: true });
  const file = openSync(path, 'w');
  let held = '';
  let passing = false;
  let served = false;
  return {
    name: shown(path),
    write: (text) => writeSync(file, text),
    ready: () => served,
    held: () => (passing ? '' : held),
    /** Logs the child's output; once it serves (`onReady(origin)`) or errs, shows it too. */
    follow(child, onReady) {
      for (const [stream, terminal] of [
        [child.stdout, process.stdout],
        [child.stderr, process.stderr],
      ]) {
        stream.on('data', (chunk) => {
          writeSync(file, chunk);
          if (passing) return terminal.write(chunk);
          held += chunk.toString();
          const ready = readyLine.exec(held);
          if (ready) {
            passing = served = true;
            process.stdout.write(held.slice(ready.index));
            onReady(ready[1]);
          } else if (errorLine.test(held)) {
            passing = true;
            process.stderr.write(held);
          }
        });
      }
    },
  };
}

/** Where the service is and what to do next: the lines a newcomer needs. */
export function announceServing(origin) {
  const { port } = new URL(origin);
  console.log(
    [
      `Sitehost serves ${origin}/ : the API, and the dashboard in a browser.`,
      `  a deployed site:  http://<domain>.localhost:${port}/`,
      `  a token:          npm run -s token -- --user 'github|1' --scope deploy,global_read`,
      `  then:             npx sitehost login --origin http://localhost:${port}   (README.md: the five-minute path)`,
      `Requests, queues and the Worker's logs follow. Ctrl-C stops.`,
    ].join('\n'),
  );
}
