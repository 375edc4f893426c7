import type { ApiToken, CreatedApiToken, SignOut } from '../../../src/common/api-types';
import { request } from '../api';
import { confirmAction } from '../dialog';
import { announce, fill, h } from '../dom';
import { timeElement } from '../format';
import { errorMessage, heading, type Screen, type ScreenContext } from '../screen';
import { forgetToken } from '../session';

const scopes = [
  ['deploy', 'deploy: deploy and manage your sites'],
  ['read', 'read: read your sites and those you are a member of, change nothing'],
  ['global_read', 'global_read: read every site and follow events'],
  ['admin', "admin: an operator's"],
] as const;
const dayMs = 86_400_000;

/** The new token, shown this once, with a button that copies it. */
function secretCard(made: CreatedApiToken): HTMLElement {
  const field = h('input', { id: 'new-token', type: 'text', readonly: true, value: made.token, class: 'code', spellcheck: 'false', autocomplete: 'off' });
  const copied = h('span', { class: 'hint', role: 'status' });
  const copy = h('button', { type: 'button', class: 'small' }, 'Copy');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(made.token);
      copied.textContent = 'Copied.';
    } catch {
      field.select();
      copied.textContent = 'Select the token and copy it yourself.';
    }
  });
  field.addEventListener('focus', () => field.select());
  return h(
    'div',
    { class: 'notice success' },
    h('strong', {}, `Made the token “${made.name}”. Copy it now: it is not shown again.`),
    h('label', { for: 'new-token' }, 'New token'),
    h('div', { class: 'actions' }, field, copy, copied),
  );
}

/** API tokens: make one (its secret shown once, with a copy button), list them with their last use, revoke one; sign out everywhere. */
export function tokensScreen(_context: ScreenContext): Screen {
  const title = heading('API tokens');
  const feedback = h('div', {});
  const list = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading your tokens…'));

  const name = h('input', { id: 'token-name', type: 'text', required: true, maxlength: 100, placeholder: 'GitHub Actions of example.com' });
  const scopeBoxes = scopes.map(([scope, label]) => {
    const box = h('input', { id: `scope-${scope}`, type: 'checkbox', value: scope, checked: scope === 'deploy' });
    return { box, element: h('div', { class: 'checkbox' }, box, h('label', { for: `scope-${scope}` }, label)) };
  });
  const sites = h('input', { id: 'token-sites', type: 'text', 'aria-describedby': 'token-sites-hint', placeholder: 'example.com, blog.example.com' });
  const days = h('input', { id: 'token-days', type: 'number', min: 1, value: 90, required: true });
  const make = h('button', { type: 'submit' }, 'Make token');

  const form = h(
    'form',
    { class: 'card' },
    h('h2', {}, 'Make a token'),
    h('div', { class: 'field' }, h('label', { for: 'token-name' }, 'Name'), name),
    h('fieldset', { class: 'field' }, h('legend', {}, 'Scopes'), scopeBoxes.map((scope) => scope.element)),
    h('div', { class: 'field' }, h('label', { for: 'token-sites' }, 'Limit to sites'), h('p', { id: 'token-sites-hint', class: 'hint' }, 'Domains of sites you own or are a member of, separated by commas (a viewer’s token: read only). Empty: all of your sites.'), sites),
    h('div', { class: 'field' }, h('label', { for: 'token-days' }, 'Expires in (days)'), days),
    make,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const domains = sites.value.split(',').map((domain) => domain.trim()).filter(Boolean);
    const body = {
      name: name.value,
      scopes: scopeBoxes.filter(({ box }) => box.checked).map(({ box }) => box.value),
      ...(domains.length > 0 ? { sites: domains } : {}),
      expiresAt: new Date(Date.now() + Number(days.value) * dayMs).toISOString().slice(0, 23),
    };
    make.disabled = true;
    try {
      const made = await request<CreatedApiToken>('POST', '/v2/tokens', { json: body });
      fill(feedback, secretCard(made));
      announce(`Made the token ${made.name}. Copy it now: it is not shown again.`);
      form.reset();
      load();
    } catch (error) {
      fill(feedback, errorMessage(error));
    } finally {
      make.disabled = false;
    }
  });

  function row(token: ApiToken): HTMLTableRowElement {
    const revoke = h('button', { type: 'button', class: 'danger small' }, 'Revoke');
    const tableRow = h(
      'tr',
      {},
      h('th', { scope: 'row', 'data-label': 'Name' }, token.name),
      h('td', { 'data-label': 'Scopes' }, token.scopes.join(', ')),
      h('td', { 'data-label': 'Sites' }, token.sites?.join(', ') ?? 'all'),
      h('td', { 'data-label': 'Expires' }, timeElement(token.expiresAt)),
      h('td', { 'data-label': 'Last used' }, token.lastUsedAt ? timeElement(token.lastUsedAt) : 'never'),
      h('td', { 'data-label': 'Revoke' }, revoke),
    );
    revoke.addEventListener('click', async () => {
      const confirmed = await confirmAction({ title: `Revoke “${token.name}”?`, message: 'Whatever uses it is refused at once here and everywhere within 30 seconds. This cannot be undone.', confirmLabel: 'Revoke' });
      if (!confirmed) return;
      try {
        await request('DELETE', `/v2/tokens/${encodeURIComponent(token.id)}`);
        tableRow.remove();
        announce(`Revoked ${token.name}.`);
        title.focus();
      } catch (error) {
        fill(feedback, errorMessage(error));
      }
    });
    return tableRow;
  }

  function load(): void {
    request<{ tokens: ApiToken[] }>('GET', '/v2/tokens').then(
      ({ tokens }) => {
        list.removeAttribute('aria-busy');
        if (tokens.length === 0) return fill(list, h('p', {}, 'You have no API tokens.'));
        const header = ['Name', 'Scopes', 'Sites', 'Expires', 'Last used', 'Revoke'].map((label) => h('th', { scope: 'col' }, label));
        fill(list, h('table', { class: 'responsive' }, h('caption', { class: 'visually-hidden' }, 'Your API tokens'), h('thead', {}, h('tr', {}, header)), h('tbody', {}, tokens.map(row))));
      },
      (error: unknown) => {
        list.removeAttribute('aria-busy');
        fill(list, errorMessage(error));
      },
    );
  }
  load();

  const everywhere = h('button', { type: 'button', class: 'danger' }, 'Sign out everywhere');
  everywhere.addEventListener('click', async () => {
    const confirmed = await confirmAction({ title: 'Sign out everywhere?', message: 'Every API token of yours is revoked, CI tokens included, and every sign-in before now ends, this one too.', confirmLabel: 'Sign out everywhere' });
    if (!confirmed) return;
    try {
      const { revoked } = await request<SignOut>('DELETE', '/v2/tokens');
      announce(`Signed out everywhere; ${revoked} tokens revoked.`);
      forgetToken();
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    } catch (error) {
      fill(feedback, errorMessage(error));
    }
  });

  const element = h(
    'div',
    {},
    title,
    h('p', {}, 'Tokens for CI and scripts: each holds the scopes you give it, only on the sites you name if you name any, until it expires or you revoke it.'),
    feedback,
    form,
    h('section', { 'aria-labelledby': 'tokens-heading' }, h('h2', { id: 'tokens-heading' }, 'Your tokens'), list),
    h('section', { class: 'card', 'aria-labelledby': 'everywhere-heading' }, h('h2', { id: 'everywhere-heading' }, 'Sign out everywhere'), h('p', {}, 'Lost a token or a laptop? This ends every token and sign-in of yours issued before now.'), everywhere),
  );
  return { title: 'API tokens', element };
}
