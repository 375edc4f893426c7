// What `npm run deploy:check` checks in wrangler.toml's [env.production] beyond what wrangler's dry
// run checks: a wrangler environment inherits no var and no binding, so one added at the top level
// and not repeated there would be missing in production only; every queue needs a dead-letter
// queue, and every dead-letter queue a consumer; the settings must pass the Worker's own checks.
// Placeholders (`<api-hostname>`) are listed, not failed: the repository ships them.
import { type Unstable_Config, unstable_readConfig } from 'wrangler';
import { checkCertificateRetries } from '../src/platform/binding-checks.ts';
import { parseSettings, placeholder } from '../src/platform/settings.ts';

/** A wrangler configuration as wrangler reads it, with one environment applied. */
type Config = Unstable_Config;

export interface Configs {
  /** The top level: the local service. */
  local: Config;
  production: Config;
}

export interface ProductionCheck {
  /** Each makes deploy:check fail. */
  problems: string[];
  /** Each is the operator's to fill in before `wrangler deploy --env production`, as `path = "value"`. */
  placeholders: string[];
}

/** wrangler.toml's top level (the local service) and its production environment, as wrangler reads them. */
export function readConfigs(configPath = new URL('../wrangler.toml', import.meta.url).pathname): Configs {
  return { local: unstable_readConfig({ config: configPath }), production: unstable_readConfig({ config: configPath, env: 'production' }) };
}

/** The names each kind of binding is known by, in a config as wrangler reads it. */
function bindingNames(config: Config): Record<string, string[]> {
  return {
    vars: Object.keys(config.vars ?? {}),
    d1_databases: config.d1_databases.map((database) => database.binding),
    r2_buckets: config.r2_buckets.map((bucket) => bucket.binding),
    'durable_objects.bindings': config.durable_objects.bindings.map((binding) => binding.name),
    'queues.producers': (config.queues.producers ?? []).map((producer) => producer.binding),
    'queues.consumers': (config.queues.consumers ?? []).map((consumer) => consumer.queue),
  };
}

/** The top level's database id: local D1 needs one, and this one names no database on Cloudflare. */
const localDatabaseId = '00000000-0000-0000-0000-000000000000';

/** Every string in `value` that holds a placeholder (or the local database id), by its path (`routes[0].pattern`). */
function placeholdersIn(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return placeholder.test(value) || value === localDatabaseId ? [`${path} = ${JSON.stringify(value)}`] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => placeholdersIn(item, `${path}[${index}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => placeholdersIn(item, path ? `${path}.${key}` : key));
  return [];
}

/** A queue without a dead-letter queue, or a dead-letter queue nothing reads. */
function deadLetterProblems(config: Config, where: string): string[] {
  const consumers = config.queues.consumers ?? [];
  const read = new Set(consumers.map((consumer) => consumer.queue));
  return consumers.flatMap((consumer) => {
    if (consumer.queue.endsWith('-dlq')) return [];
    if (consumer.dead_letter_queue !== `${consumer.queue}-dlq`) return [`${where}: the queue ${consumer.queue} needs dead_letter_queue = "${consumer.queue}-dlq"`];
    if (!read.has(consumer.dead_letter_queue)) return [`${where}: nothing consumes the dead-letter queue ${consumer.dead_letter_queue}`];
    return [];
  });
}

/** The production environment's problems and placeholders. */
export function checkProduction({ local, production }: Configs): ProductionCheck {
  const problems: string[] = [];
  const localNames = bindingNames(local);
  const productionNames = bindingNames(production);
  for (const [kind, names] of Object.entries(localNames)) {
    for (const name of names.filter((name) => !productionNames[kind]!.includes(name))) {
      problems.push(`[env.production] lacks ${kind} ${name}, set at the top level: environments inherit no var and no binding`);
    }
  }
  problems.push(...deadLetterProblems(local, 'the top level'), ...deadLetterProblems(production, '[env.production]'));

  // The settings as the Worker will read them: each placeholder stands in as its bare name
  // (`<api-hostname>` → `api-hostname`), and each required secret as set (wrangler refuses to
  // deploy without it), so every other check of the Worker still runs.
  const filledIn = Object.fromEntries(Object.entries(production.vars).map(([name, value]) => [name, typeof value === 'string' ? value.replaceAll(/<([^<>]*)>/g, '$1') : value]));
  const secrets = Object.fromEntries((production.secrets?.required ?? []).map((name) => [name, `${name.toLowerCase()}-stand-in-of-a-long-random-value`]));
  try {
    const certificates = production.queues.consumers?.find((consumer) => consumer.queue === 'sitehost-certificates');
    checkCertificateRetries(parseSettings({ ...filledIn, ...secrets }), certificates?.max_retries);
  } catch (error) {
    problems.push(`[env.production.vars]: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { problems, placeholders: placeholdersIn(production) };
}
