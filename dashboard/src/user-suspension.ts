import type { SiteSuspension, UserSuspension } from '../../src/common/api-types';
import { ApiError } from '../../src/common/received-problem';
import { request } from './api';
import { confirmAction } from './dialog';
import { fill, h } from './dom';
import { timeElement } from './format';
import { errorMessage } from './screen';

/** The operator's card of a user: what it shows, and `show` to bring it up to date with their suspension (null: none). */
export interface UserSuspensionCard {
  element: HTMLElement;
  show(userId: string, suspension: SiteSuspension | null): void;
}

const userSuspensionPath = (userId: string) => `/v2/users/${encodeURIComponent(userId)}/suspension`;

/** The user's suspension in force, or null (GET answers 404 when there is none). */
export async function userSuspensionOf(userId: string): Promise<UserSuspension | null> {
  try {
    return await request<UserSuspension>('GET', userSuspensionPath(userId));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/**
 * An operator's controls (a token with the `admin` scope) over a user (a site's owner, beside the
 * site's own controls, or on the Users screen): whether they are suspended, since when and why;
 * suspend them with a reason they read (every site of theirs answers 451, and they claim and
 * change nothing) or lift it, each confirmed first. `changed` reloads what the page shows.
 */
export function userSuspensionCard(heading: string, changed: () => void): UserSuspensionCard {
  let shownUser: string | undefined;
  const state = h('p', { id: 'user-suspension-state' }, 'Loading…');
  const feedback = h('div', {});
  const reason = h('input', { id: 'user-suspension-reason', type: 'text', required: true, maxlength: 1000, placeholder: 'Deploys the same phishing site under new names (case 4412)' });
  const suspend = h('button', { type: 'submit', class: 'danger' }, 'Suspend user');
  const resume = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Lift user suspension');
  const form = h('form', { class: 'inline-form' }, h('div', { class: 'field' }, h('label', { for: 'user-suspension-reason' }, 'Reason, for the user'), reason), h('div', { class: 'actions' }, suspend, resume));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const userId = shownUser;
    if (userId === undefined) return;
    const confirmed = await confirmAction({
      title: `Suspend ${userId}?`,
      message: 'Every site of theirs, this one included, answers 451 on its domain and previews, and they can claim and change nothing until the suspension is lifted.',
      confirmLabel: 'Suspend user',
    });
    if (!confirmed) return;
    try {
      const suspension = await request<UserSuspension>('PUT', userSuspensionPath(userId), { json: { reason: reason.value } });
      const count = suspension.domains.length;
      const sites = count === 0 ? 'they own no site' : count === 1 ? '1 site answers 451' : `${count} sites answer 451`;
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, `Suspended ${userId}: ${sites}.`));
      form.reset();
      changed();
    } catch (error) {
      fill(feedback, errorMessage(error));
    }
  });
  resume.addEventListener('click', async () => {
    const userId = shownUser;
    if (userId === undefined) return;
    const confirmed = await confirmAction({ title: `Lift the suspension of ${userId}?`, message: 'Their sites are served again, and they may claim and change sites.', confirmLabel: 'Lift user suspension', tone: 'primary' });
    if (!confirmed) return;
    try {
      await request('DELETE', userSuspensionPath(userId));
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, `The suspension of ${userId} is lifted: their sites are served again.`));
      changed();
    } catch (error) {
      fill(feedback, errorMessage(error));
    }
  });

  const element = h('section', { class: 'card', 'aria-labelledby': 'user-suspension-heading' }, h('h2', { id: 'user-suspension-heading' }, heading), state, feedback, form);
  return {
    element,
    show(userId, suspension) {
      shownUser = userId;
      fill(state, suspension ? [`${userId} is suspended since `, timeElement(suspension.since), `: ${suspension.reason}`] : `${userId} is not suspended.`);
      resume.hidden = suspension === null;
    },
  };
}
