import type { Identity, UserSuspension } from '../../../src/common/api-types';
import { request } from '../api';
import { fill, h } from '../dom';
import { link } from '../router';
import { errorMessage, heading, type Screen, type ScreenContext } from '../screen';
import { userSuspensionCard, userSuspensionOf } from '../user-suspension';

/** The sites a suspended user owns, each a link to its screen: what the suspension withholds. */
function sitesOf(suspension: UserSuspension | null): HTMLElement | null {
  if (!suspension) return null;
  if (suspension.domains.length === 0) return h('p', { id: 'user-sites' }, 'They own no site.');
  return h('p', { id: 'user-sites' }, 'Their sites, which answer 451: ', suspension.domains.flatMap((domain, index) => [index > 0 && ', ', h('a', { href: link({ screen: 'site', domain }) }, domain)]));
}

/**
 * An operator's Users screen: a user id asked for, then whether that user is suspended, since
 * when and why, with their sites, and the controls to suspend or lift it; any user, one who owns
 * no site too. A token without `admin` is told so, and gets no controls.
 */
export function usersScreen(_context: ScreenContext, userId: string | undefined): Screen {
  const title = heading('Users');
  const body = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading…'));
  const field = h('input', { id: 'user-id', type: 'text', required: true, maxlength: 255, value: userId ?? '', placeholder: 'github|12345', spellcheck: 'false', autocomplete: 'off' });
  const find = h('form', { class: 'inline-form' }, h('div', { class: 'field' }, h('label', { for: 'user-id' }, 'User id'), field), h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Look up')));
  find.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = link({ screen: 'users', userId: field.value.trim() });
  });

  const card = userSuspensionCard('Suspension', load);
  const sites = h('div', {});
  function load(): void {
    if (userId === undefined) return;
    userSuspensionOf(userId).then(
      (suspension) => {
        card.show(userId, suspension);
        fill(sites, sitesOf(suspension));
      },
      (error) => fill(sites, errorMessage(error)),
    );
  }

  request<Identity>('GET', '/v2/whoami').then(
    (identity) => {
      body.removeAttribute('aria-busy');
      if (!identity.scopes.includes('admin')) return fill(body, h('p', {}, 'Only the service’s operators (a token with the admin scope) see and suspend users.'));
      fill(body, h('section', { class: 'card' }, find), userId !== undefined && [card.element, sites]);
      load();
    },
    (error) => fill(body, errorMessage(error)),
  );
  return { title: 'Users', element: h('div', {}, title, body) };
}
