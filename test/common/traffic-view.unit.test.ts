import { describe, expect, it } from 'vitest';
import type { DeploymentTraffic } from '../../src/common/api-types';
import { analyticsPath, apiTimestamp, errorRatesText, formatRate, spanMs } from '../../src/common/traffic-view';

const hour = 3_600_000;

describe('traffic view', () => {
  it('reads spans back from now in hours or days, and nothing else', () => {
    expect(spanMs('24h')).toBe(24 * hour);
    expect(spanMs('7d')).toBe(7 * 24 * hour);
    expect(spanMs(' 30d ')).toBe(30 * 24 * hour);
    for (const text of ['0d', '7', 'd', '1w', '-1d', '1.5d', '2026-11-01', '123456d']) expect(spanMs(text), text).toBeUndefined();
  });

  it('asks for a range from an instant in the API timestamp form, the interval only when given', () => {
    const from = apiTimestamp(new Date(Date.UTC(2026, 10, 29, 10, 4, 5, 678)));
    expect(from).toBe('2026-11-29T10:04:05');
    expect(analyticsPath('a.example', from)).toBe('/v2/sites/a.example/analytics?from=2026-11-29T10%3A04%3A05');
    expect(analyticsPath('a.example', '2026-11-01', 'day')).toBe('/v2/sites/a.example/analytics?from=2026-11-01&interval=day');
  });

  it('shows rates as percentages, finer below 1 %, and none without requests', () => {
    expect(formatRate(0.0174)).toBe('1.7 %');
    expect(formatRate(0.0025)).toBe('0.25 %');
    expect(formatRate(0)).toBe('0.0 %');
    expect(formatRate(1)).toBe('100.0 %');
    expect(formatRate(null)).toBe('-');
  });

  it("sets a deployment's error rates against the one live before it", () => {
    const deployment: DeploymentTraffic = {
      deploymentId: 'new',
      liveFrom: null,
      requests: 200,
      pageViews: 100,
      bytes: 0,
      status4xx: 10,
      status5xx: 0,
      rate4xx: 0.05,
      rate5xx: 0,
      previous: { deploymentId: 'old', rate4xx: 0.005, rate5xx: null },
      brokenLinks: [],
    };
    expect(errorRatesText(deployment)).toBe('4xx 5.0 % (before: 0.50 %), 5xx 0.0 % (before: -)');
    expect(errorRatesText({ ...deployment, previous: null })).toBe('4xx 5.0 %, 5xx 0.0 %');
  });
});
