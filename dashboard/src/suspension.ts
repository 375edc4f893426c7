import type { SiteSuspension } from '../../src/common/api-types';
import { sitePath } from '../../src/common/site-paths';
import { request } from './api';
import { confirmAction } from './dialog';
import { fill, h } from './dom';
import { errorMessage } from './screen';

/**
 * An operator's controls (a token with the `admin` scope): suspend the site with a reason its
 * owner reads (its domain and previews answer 451), or lift the suspension. `changed` reloads
 * what the page shows of the site.
 */
export function suspensionCard(domain: string, changed: () => void): HTMLElement {
  const feedback = h('div', {});
  const reason = h('input', { id: 'suspension-reason', type: 'text', required: true, maxlength: 1000, placeholder: 'Phishing reported (case 4411)' });
  const suspend = h('button', { type: 'submit', class: 'danger' }, 'Suspend site');
  const resume = h('button', { type: 'button', class: 'secondary' }, 'Lift suspension');
  const form = h('form', { class: 'inline-form' }, h('div', { class: 'field' }, h('label', { for: 'suspension-reason' }, 'Reason, for the owner'), reason), h('div', { class: 'actions' }, suspend, resume));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!(await confirmAction({ title: `Suspend ${domain}?`, message: 'Its domain and previews answer 451, and its owner cannot change it until the suspension is lifted.', confirmLabel: 'Suspend site' }))) return;
    try {
      const suspension = await request<SiteSuspension>('PUT', sitePath(domain, '/suspension'), { json: { reason: reason.value } });
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, `Suspended: ${suspension.reason}`));
      changed();
    } catch (error) {
      fill(feedback, errorMessage(error));
    }
  });
  resume.addEventListener('click', async () => {
    try {
      await request('DELETE', sitePath(domain, '/suspension'));
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, 'The suspension is lifted: the site is served again.'));
      changed();
    } catch (error) {
      fill(feedback, errorMessage(error));
    }
  });
  return h('section', { class: 'card', 'aria-labelledby': 'suspension-heading' }, h('h2', { id: 'suspension-heading' }, 'Operator: suspension'), feedback, form);
}
