import pc from 'picocolors';
import { terminalSafe } from '../../src/common/control-characters.ts';
import { followEvents } from '../../src/common/event-stream.ts';
import { ApiError } from '../../src/common/received-problem.ts';
import { cliErrorOf } from '../api.ts';
import { connect } from '../credentials.ts';

/** `site-deploy example.com isNewDomain=true …`: the event's own fields after its type and domain. */
function describe(data: string, fallbackType: string | undefined): string {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    return terminalSafe(`${fallbackType ?? 'message'} ${data}`);
  }
  if (typeof event !== 'object' || event === null) return terminalSafe(`${fallbackType ?? 'message'} ${data}`);
  const { type, domain, ...rest } = event as Record<string, unknown>;
  const fields = Object.entries(rest).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [pc.bold(terminalSafe(String(type ?? fallbackType ?? 'message'))), terminalSafe(String(domain ?? '')), pc.dim(terminalSafe(fields.join(' ')))].filter(Boolean).join(' ');
}

/** One line of JSON per event: its id (to resume with --last-event-id), then its own fields. */
function asJsonLine(id: string | undefined, data: string): string {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    event = { data };
  }
  return JSON.stringify(typeof event === 'object' && event !== null ? { id, ...event } : { id, data: event });
}

export async function followEventsCommand(options: { json?: boolean; lastEventId?: string }): Promise<void> {
  const api = await connect();
  const events = followEvents((headers, signal) => api.stream('/v2/events', headers, signal), {
    lastEventId: options.lastEventId,
    onReconnect: (reason, delayMs) =>
      console.error(pc.yellow(`Event stream interrupted (${terminalSafe(reason)}); reconnecting in ${Math.round(delayMs / 1000)} s…`)),
    onGap: (reason) => console.error(pc.yellow(`Some events were missed (${terminalSafe(reason)}); going on from the oldest event kept.`)),
  });
  if (!options.json) console.error(pc.dim(`Following events from ${api.origin}; Ctrl-C stops.`));
  try {
    for await (const message of events) {
      if (options.json) {
        process.stdout.write(`${asJsonLine(message.id, message.data)}\n`);
      } else {
        console.log(`${message.id ? pc.dim(`#${terminalSafe(message.id)} `) : ''}${describe(message.data, message.event)}`);
      }
    }
  } catch (error) {
    throw error instanceof ApiError ? cliErrorOf(error) : error;
  }
}
