import type { DomainProof, DomainProofRecord } from '../../src/common/api-types';
import { request } from './api';
import { fill, h } from './dom';

/**
 * The DNS record a domain's first deploy waits for (`/problems/domain-proof-required`), each part
 * ready to copy into a DNS console, and a button that asks whether the domain's DNS shows it yet.
 */
export function proofRecordFacts(record: DomainProofRecord): HTMLElement {
  const domain = record.name.slice(record.name.indexOf('.') + 1);
  const state = h('p', { 'aria-live': 'polite', id: 'proof-state' });
  async function check(): Promise<void> {
    fill(state, 'Asking the DNS…');
    try {
      const proof = await request<DomainProof>('GET', `/v2/domains/${encodeURIComponent(domain)}/proof`);
      fill(state, proof.verified ? `Verified: the DNS shows it. Deploy again to claim ${domain}.` : 'Not visible in DNS yet: a new record shows within minutes. Check again in a while.');
    } catch (error) {
      fill(state, error instanceof Error ? error.message : String(error));
    }
  }
  return h(
    'div',
    { class: 'proof-record' },
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Name'),
      h('dd', { 'data-record': 'name' }, h('code', {}, record.name)),
      h('dt', {}, 'Type'),
      h('dd', { 'data-record': 'type' }, h('code', {}, record.type)),
      h('dt', {}, 'Value'),
      h('dd', { 'data-record': 'value' }, h('code', {}, record.value)),
    ),
    h('p', {}, h('button', { type: 'button', onclick: () => void check() }, 'Check the DNS')),
    state,
  );
}
