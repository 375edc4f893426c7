import type { SiteMember, SiteMembers } from '../../src/common/api-types';
import { sitePath } from '../../src/common/site-paths';
import { request } from './api';
import { confirmAction } from './dialog';
import { announce, fill, h } from './dom';
import { timeElement } from './format';
import { errorMessage } from './screen';

const memberPath = (domain: string, userId: string) => sitePath(domain, `/members/${encodeURIComponent(userId)}`);

/**
 * A site's owner and members; its owner (`isOwner`) adds a member, changes a role by adding
 * again, and removes one. Anyone else sees the list (or the service's refusal).
 */
export function membersCard(domain: string, isOwner: Promise<boolean>): HTMLElement {
  const feedback = h('div', {});
  const list = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading members…'));
  const form = h('div', {});

  function row(member: SiteMember, owner: boolean): HTMLTableRowElement {
    const remove = owner && member.role !== 'owner' ? h('button', { type: 'button', class: 'danger small' }, 'Remove') : null;
    const tableRow = h(
      'tr',
      {},
      h('th', { scope: 'row', 'data-label': 'User' }, member.userId),
      h('td', { 'data-label': 'Role' }, member.role),
      h('td', { 'data-label': 'Since' }, timeElement(member.addedAt)),
      h('td', { 'data-label': 'Remove' }, remove),
    );
    remove?.addEventListener('click', async () => {
      const confirmed = await confirmAction({ title: `Remove ${member.userId}?`, message: `They reach ${domain} no more.`, confirmLabel: 'Remove' });
      if (!confirmed) return;
      try {
        await request('DELETE', memberPath(domain, member.userId));
        announce(`${member.userId} is no longer a member.`);
        load();
      } catch (error) {
        fill(feedback, errorMessage(error));
      }
    });
    return tableRow;
  }

  function load(): void {
    Promise.all([request<SiteMembers>('GET', sitePath(domain, '/members')), isOwner]).then(
      ([listed, owner]) => {
        list.removeAttribute('aria-busy');
        const header = ['User', 'Role', 'Since', 'Remove'].map((label) => h('th', { scope: 'col' }, label));
        const rows = [listed.owner, ...listed.members].map((member) => row(member, owner));
        fill(list, h('table', { class: 'responsive', id: 'members' }, h('caption', { class: 'visually-hidden' }, `Members of ${domain}`), h('thead', {}, h('tr', {}, header)), h('tbody', {}, rows)));
      },
      (error: unknown) => {
        list.removeAttribute('aria-busy');
        fill(list, errorMessage(error));
      },
    );
  }

  void isOwner.then((owner) => {
    if (!owner) return;
    const userId = h('input', { id: 'member-user', type: 'text', required: true, maxlength: 255, placeholder: 'github|12345', 'aria-describedby': 'member-user-hint' });
    const role = h('select', { id: 'member-role' }, h('option', { value: 'deployer' }, 'deployer: deploys and edits'), h('option', { value: 'viewer' }, 'viewer: reads'));
    const add = h('button', { type: 'submit' }, 'Add member');
    const adding = h(
      'form',
      { class: 'inline-form' },
      h('div', { class: 'field' }, h('label', { for: 'member-user' }, 'User id'), h('p', { id: 'member-user-hint', class: 'hint' }, 'As their Sitehost sign-in shows it. Adding a member again changes the role.'), userId),
      h('div', { class: 'field' }, h('label', { for: 'member-role' }, 'Role'), role),
      add,
    );
    adding.addEventListener('submit', async (event) => {
      event.preventDefault();
      add.disabled = true;
      try {
        const member = await request<SiteMember>('PUT', memberPath(domain, userId.value.trim()), { json: { role: role.value } });
        fill(feedback, h('div', { class: 'notice success', role: 'status' }, `${member.userId} is a ${member.role} of ${domain}.`));
        adding.reset();
        load();
      } catch (error) {
        fill(feedback, errorMessage(error));
      } finally {
        add.disabled = false;
      }
    });
    fill(form, adding);
  });

  load();
  return h('section', { class: 'card', 'aria-labelledby': 'members-heading' }, h('h2', { id: 'members-heading' }, 'Members'), feedback, list, form);
}
