import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';

const repo = new URL('../../..', import.meta.url).pathname;

/** A process a test runs from the repository, with its output kept for assertions and error messages. */
export interface TestProcess {
  name: string;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Null while it runs; then its exit code, or the signal that ended it. */
  exitStatus(): number | NodeJS.Signals | null;
  /** Ends its whole process group and waits until it has exited. */
  stop(): Promise<void>;
  /** Kills its whole process group at once (SIGKILL: nothing can finish or clean up) and waits until it has exited. */
  kill(): Promise<void>;
}

/**
 * Starts `command` in its own process group, so that stopping it stops its children too (wrangler's
 * workerd); with `logFile`, everything it prints is appended there too.
 */
export function startProcess(name: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, logFile?: string): TestProcess {
  const child = spawn(command, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (logFile) appendFileSync(logFile, chunk);
    });
  }
  // A command that cannot be spawned (not installed) exits at once; its error tells why.
  child.on('error', (error) => (output += `${error}\n`));
  const exitStatus = () => child.exitCode ?? child.signalCode;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    name,
    output: () => output,
    exitStatus,
    async stop() {
      if (child.pid === undefined || exitStatus() !== null) return;
      process.kill(-child.pid, 'SIGTERM');
      // A process stuck on shutdown must not hang the test run: kill it after 10 s.
      const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
    async kill() {
      if (child.pid === undefined || exitStatus() !== null) return;
      process.kill(-child.pid, 'SIGKILL');
      await exited;
    },
  };
}

/**
 * Polls `condition` until it holds. Fails at once, with its output, when one of `watched` has
 * exited, and with the end of everyone's output after `timeoutMs`.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs: number,
  watched: readonly TestProcess[],
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    const exited = watched.find((entry) => entry.exitStatus() !== null);
    if (exited) throw new Error(`${exited.name} exited (${exited.exitStatus()}) before ${what}:\n${exited.output()}`);
    if (Date.now() > deadline) {
      const outputs = watched.map((entry) => `--- ${entry.name}\n${stripVTControlCharacters(entry.output()).slice(-4000)}`);
      throw new Error(`Timed out waiting for ${what}:\n${outputs.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
