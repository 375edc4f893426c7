import type { Quota, Usage } from '../../src/common/api-types';
import { formatBytes } from '../../src/common/format-bytes';
import { request } from './api';
import { type Child, fill, h } from './dom';
import { errorMessage } from './screen';

/** One quota: a meter of what is used of the limit (high from 90 %), and the same in words; the setting in its title. */
function quotaFacts(label: string, quota: Quota, words: string): Child[] {
  const meter = h('meter', { min: 0, max: quota.limit, value: quota.used, high: quota.limit * 0.9, 'aria-label': label, title: quota.setting });
  return [h('dt', {}, label), h('dd', {}, meter, ' ', words)];
}

/** The signed-in user's use of each quota (`GET /v2/usage`), as a card; `refresh` reads it again after a change. */
export function usageCard(): { element: HTMLElement; refresh(): void } {
  const facts = h('dl', { class: 'facts usage', 'aria-busy': 'true' });
  const refresh = () => {
    request<Usage>('GET', '/v2/usage').then(
      ({ sites, bytes, deploysPerHour }) => {
        facts.removeAttribute('aria-busy');
        fill(
          facts,
          quotaFacts('Sites', sites, `${sites.used} of ${sites.limit}`),
          quotaFacts('Storage', bytes, `${formatBytes(bytes.used)} of ${formatBytes(bytes.limit)}`),
          quotaFacts('Deploys', deploysPerHour, `${deploysPerHour.used} of ${deploysPerHour.limit} in the last hour`),
        );
      },
      (error: unknown) => {
        facts.removeAttribute('aria-busy');
        fill(facts, errorMessage(error));
      },
    );
  };
  refresh();
  const element = h('section', { class: 'card', 'aria-labelledby': 'usage-heading' }, h('h2', { id: 'usage-heading' }, 'Your usage'), facts);
  return { element, refresh };
}
