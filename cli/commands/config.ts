import pc from 'picocolors';
import { connect } from '../credentials.ts';
import { printJson } from '../format.ts';
import { readJsonArgument } from '../input.ts';
import type { ConfigurationRecord } from '../../src/common/api-types.ts';
import { sitePath } from '../../src/common/site-paths.ts';

interface JsonOption {
  json?: boolean;
}

export async function getConfig(domain: string, options: JsonOption): Promise<void> {
  const api = await connect();
  const record = await api.json<ConfigurationRecord>(sitePath(domain, '/configuration'));
  printJson(options.json ? record : record.configuration);
}

async function writeConfig(domain: string, source: string | undefined, method: 'PUT' | 'PATCH', options: JsonOption) {
  const document = await readJsonArgument(source, method === 'PUT' ? 'host configuration' : 'merge patch');
  const api = await connect();
  const record = await api.json<ConfigurationRecord>(sitePath(domain, '/configuration'), {
    method,
    headers: { 'content-type': method === 'PUT' ? 'application/json' : 'application/merge-patch+json' },
    body: JSON.stringify(document),
  });
  if (options.json) return printJson(record);
  console.log(`${pc.green('✔')} Configuration of ${pc.bold(domain)} ${method === 'PUT' ? 'replaced' : 'updated'}:`);
  printJson(record.configuration);
}

export function setConfig(domain: string, source: string | undefined, options: JsonOption): Promise<void> {
  return writeConfig(domain, source, 'PUT', options);
}

export function patchConfig(domain: string, source: string | undefined, options: JsonOption): Promise<void> {
  return writeConfig(domain, source, 'PATCH', options);
}
