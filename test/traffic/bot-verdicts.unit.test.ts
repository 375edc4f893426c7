import { isbot } from 'isbot';
import { describe, expect, it } from 'vitest';
import { isBotAgent } from '../../src/traffic/bot-verdicts';

const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe('bot verdicts by user agent', () => {
  it('judges as isbot does, the first time and every time after', () => {
    for (let i = 0; i < 3; i++) {
      expect(isBotAgent(googlebot)).toBe(true);
      expect(isBotAgent(firefox)).toBe(false);
      expect(isBotAgent('')).toBe(isbot(''));
    }
  });

  it('still judges right past the user agents it remembers, and judges a very long one each time', () => {
    const agents = Array.from({ length: 2_500 }, (_, i) => (i % 2 === 0 ? `${firefox} build/${i}` : `crawler-${i}/1.0 (+https://crawler.example/bot)`));
    for (const agent of [...agents, ...agents]) expect(isBotAgent(agent)).toBe(isbot(agent));
    const long = `${firefox} ${'x'.repeat(5_000)}`;
    expect([isBotAgent(long), isBotAgent(long)]).toEqual([isbot(long), isbot(long)]);
  });
});
