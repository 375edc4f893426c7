import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { CliError } from './errors.ts';

/**
 * A JSON document given as inline text (starting with `{` or `[`), a file path, or `-` / nothing
 * for standard input. Returns the parsed value; `what` names it in errors.
 */
export async function readJsonArgument(argument: string | undefined, what: string): Promise<unknown> {
  const inline = argument !== undefined && /^\s*[{[]/.test(argument);
  let source: string;
  let where: string;
  if (inline) {
    source = argument;
    where = 'the argument';
  } else if (argument === undefined || argument === '-') {
    if (process.stdin.isTTY) throw new CliError('usage', `Give the ${what} as a file, as JSON text, or on standard input.`);
    source = await text(process.stdin);
    where = 'standard input';
  } else {
    source = await readFile(argument, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new CliError('usage', `Cannot read ${argument}: ${error.code === 'ENOENT' ? 'no such file' : error.message}.`);
    });
    where = argument;
  }
  try {
    return JSON.parse(source);
  } catch (error) {
    throw new CliError('usage', `The ${what} in ${where} is not valid JSON: ${(error as Error).message}.`);
  }
}

/** Asks a yes/no question on the terminal; anything but y/yes is no. */
export async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

/** Reads a secret on the terminal without echoing it: readline echoes into a sink. */
export async function promptSecret(question: string): Promise<string> {
  process.stderr.write(question);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const prompt = createInterface({ input: process.stdin, output: sink, terminal: true });
  try {
    return (await prompt.question('')).trim();
  } finally {
    prompt.close();
    process.stderr.write('\n');
  }
}
