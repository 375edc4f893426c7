/**
 * The service's one logging style: a JSON line per event, `{"level", "message", ...fields}`,
 * which Workers Logs and `wrangler tail` index by field. An `error` field is written as its
 * name, message and stack (an Error's own properties do not survive JSON.stringify).
 */
type Level = 'info' | 'warn' | 'error';

export type LogFields = Record<string, unknown> & { error?: unknown };

function describe(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  return { name: error.name, message: error.message, stack: error.stack };
}

function write(level: Level, message: string, fields: LogFields): void {
  const line = JSON.stringify({ level, message, ...fields, ...('error' in fields ? { error: describe(fields.error) } : {}) });
  if (level === 'error') console.error(line);
  else if (level === 'warn') console.warn(line);
  else console.log(line);
}

export const log = {
  info: (message: string, fields: LogFields = {}) => write('info', message, fields),
  warn: (message: string, fields: LogFields = {}) => write('warn', message, fields),
  error: (message: string, fields: LogFields = {}) => write('error', message, fields),
};
