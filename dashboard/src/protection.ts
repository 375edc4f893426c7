import type { SiteProtectionView } from '../../src/common/protection-types';
import { sitePath } from '../../src/common/site-paths';
import { request } from './api';
import { confirmAction } from './dialog';
import { fill, h } from './dom';
import { timeElement } from './format';
import { errorMessage } from './screen';

const previewChoices = [
  ['members', 'Members only: opened through a share link'],
  ['public', 'Anyone with the address'],
] as const;
const siteChoices = [
  ['public', 'Anyone'],
  ['members', 'Members only: opened through a share link'],
  ['password', 'Anyone with the password (or a share link)'],
] as const;

function select(id: string, choices: readonly (readonly [string, string])[]): HTMLSelectElement {
  return h('select', { id }, choices.map(([value, label]) => h('option', { value }, label)));
}

/**
 * Who may open the site's hosts, for its owner: previews and the site itself, the site's
 * password (never shown; a new one signs every visitor out), and signing every visitor out.
 * Members are told they may share the site through the Preview and Open site buttons.
 */
export function protectionCard(domain: string, isOwner: Promise<boolean>): HTMLElement {
  const feedback = h('div', {});
  const current = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading…'));
  const previews = select('protection-previews', previewChoices);
  const site = select('protection-site', siteChoices);
  const password = h('input', { id: 'protection-password', type: 'password', autocomplete: 'new-password', placeholder: 'leave empty to keep the one set' });
  const save = h('button', { type: 'submit' }, 'Save protection');
  const form = h(
    'form',
    { class: 'inline-form', hidden: true, id: 'protection-form' },
    h('div', { class: 'field' }, h('label', { for: 'protection-previews' }, 'Previews'), previews),
    h('div', { class: 'field' }, h('label', { for: 'protection-site' }, 'The site'), site),
    h('div', { class: 'field' }, h('label', { for: 'protection-password' }, 'New password'), password),
    save,
  );
  const signOut = h('button', { type: 'button', class: 'danger small', hidden: true, id: 'protection-sign-out' }, 'Sign every visitor out');

  function show(view: SiteProtectionView): void {
    current.removeAttribute('aria-busy');
    previews.value = view.previews;
    site.value = view.site;
    fill(
      current,
      h(
        'dl',
        { class: 'facts', id: 'protection' },
        h('dt', {}, 'Previews'),
        h('dd', { 'data-fact': 'previews' }, view.previews === 'members' ? 'Members only' : 'Public'),
        h('dt', {}, 'The site'),
        h('dd', { 'data-fact': 'site' }, { public: 'Public', members: 'Members only', password: 'Password' }[view.site]),
        h('dt', {}, 'Password'),
        h('dd', {}, view.passwordSet ? 'Set' : 'None'),
        h('dt', {}, 'Visitors last signed out'),
        h('dd', {}, view.signedOutAt ? timeElement(view.signedOutAt) : 'Never'),
      ),
    );
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    save.disabled = true;
    try {
      const body = { previews: previews.value, site: site.value, ...(password.value ? { password: password.value } : {}) };
      show(await request<SiteProtectionView>('PUT', sitePath(domain, '/protection'), { json: body }));
      password.value = '';
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, 'Saved: every location serves the site this way from the next request.'));
    } catch (error) {
      fill(feedback, errorMessage(error));
    } finally {
      save.disabled = false;
    }
  });
  signOut.addEventListener('click', async () => {
    if (!(await confirmAction({ title: 'Sign every visitor out?', message: 'Every share link and password sign-in made so far stops working.', confirmLabel: 'Sign out' }))) return;
    try {
      await request('DELETE', sitePath(domain, '/share'));
      show(await request<SiteProtectionView>('GET', sitePath(domain, '/protection')));
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, 'Every visitor is signed out.'));
    } catch (error) {
      fill(feedback, errorMessage(error));
    }
  });

  void isOwner.then(async (owner) => {
    if (!owner) {
      current.removeAttribute('aria-busy');
      return fill(current, h('p', {}, 'Only the site’s owner sets who may open it. The Preview and Open site buttons open its hosts for you with a share link.'));
    }
    form.hidden = false;
    signOut.hidden = false;
    try {
      show(await request<SiteProtectionView>('GET', sitePath(domain, '/protection')));
    } catch (error) {
      current.removeAttribute('aria-busy');
      fill(current, errorMessage(error));
    }
  });

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'protection-heading' },
    h('h2', { id: 'protection-heading' }, 'Who may open it'),
    h('p', { class: 'hint' }, 'Members open protected hosts through share links, which the Preview and Open site buttons make for them.'),
    feedback,
    current,
    signOut,
    form,
  );
}
