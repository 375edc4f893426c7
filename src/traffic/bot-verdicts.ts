/**
 * Whether a user agent is a bot (`isbot`), remembered in the isolate for the user agents it saw
 * lately: `isbot` runs one large regular expression (a few µs), and most of a site's requests come
 * from a few hundred user agents. Bounded: at most `maxAgents` user agents, each of at most
 * `maxAgentLength` characters (a longer one is judged each time); when full, it starts over. It
 * holds user agents alone, never beside an address or anything else of a request, in the
 * isolate's memory only: nothing of it is stored, logged or sent (docs/analytics.md).
 */
import { isbot } from 'isbot';

const maxAgents = 1_000;
const maxAgentLength = 300;

const verdicts = new Map<string, boolean>();

export function isBotAgent(userAgent: string): boolean {
  const known = verdicts.get(userAgent);
  if (known !== undefined) return known;
  const bot = isbot(userAgent);
  if (userAgent.length <= maxAgentLength) {
    if (verdicts.size >= maxAgents) verdicts.clear();
    verdicts.set(userAgent, bot);
  }
  return bot;
}
