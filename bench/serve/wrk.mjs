// Runs wrk for bench/serve: one block of load against one URL, and checks that a server answers
// a file's bytes before it is measured.
import { spawn } from 'node:child_process';
import { get } from 'node:http';

/**
 * Runs wrk (`threads` threads, `connections` connections) against `url` for `ms` milliseconds
 * and returns the responses it counted, requests/s and the p99 latency in ms. wrk's `-d` takes
 * whole seconds, so it runs with a long one and is stopped by SIGINT, which it answers by
 * stopping its threads and reporting as at the end of its duration: blocks of a few hundred
 * milliseconds, and many of them in a minute. Any response that is not 2xx or 3xx is an error.
 */
export function wrk(url, { ms, threads, connections, host, cookie }) {
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${Math.ceil(ms / 1000) + 60}s`, '--latency', '--timeout', '5s'];
  if (host) args.push('-H', `Host: ${host}`);
  if (cookie) args.push('-H', `Cookie: ${cookie}`);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', [...args, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGINT'), ms);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
      const [, value, unit] = /^\s+99%\s+([\d.]+)(us|ms|s)\s*$/m.exec(stdout) ?? [];
      const p99 = Number(value) * { us: 0.001, ms: 1, s: 1000 }[unit];
      const errors = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1];
      if (errors) reject(new Error(`${url}: ${errors} failed responses\n${stdout}`));
      else if (code !== 0 || Number.isNaN(rps)) reject(new Error(`wrk ${args.join(' ')} ${url} failed (${code}):\n${stdout}${stderr}`));
      else resolve({ requests, rps, p99 });
    });
  });
}

/** Checks that a server answers with the file's bytes before measuring it (fetch cannot set Host). */
export function check(url, host, file, cookie) {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: { ...(host ? { host } : {}), ...(cookie ? { cookie } : {}) } }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        if (response.statusCode === 200 && body.equals(file.bytes)) resolve();
        else reject(new Error(`${url} (Host ${host ?? 'default'}) answered ${response.statusCode} with ${body.length} bytes, not ${file.name}`));
      });
    });
    request.on('error', reject);
  });
}
