import type { GithubTrustPolicy } from '../../src/common/api-types';
import { sitePath } from '../../src/common/site-paths';
import { ApiError } from '../../src/common/received-problem';
import { request } from './api';
import { confirmAction } from './dialog';
import { fill, h } from './dom';
import { timeElement } from './format';
import { errorMessage } from './screen';

const fields = [
  ['repository', 'Repository', 'octo-org/site', true],
  ['repositoryId', 'Repository id', '101 (GitHub’s numeric id of the repository)', true],
  ['repositoryOwnerId', 'Repository owner id', '202 (GitHub’s numeric id of its owner)', true],
  ['workflow', 'Workflow file', '.github/workflows/deploy.yml', true],
  ['ref', 'Only on ref', 'refs/heads/main (empty: any)', false],
  ['environment', 'Only in environment', 'production (empty: any)', false],
] as const;

/**
 * The site's GitHub Actions trust policy, for its owner: which workflow's jobs deploy it with
 * no stored secret; set (replacing the one before) or removed. Others are told only the owner sees it.
 */
export function trustCard(domain: string, isOwner: Promise<boolean>): HTMLElement {
  const feedback = h('div', {});
  const current = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading…'));
  const inputs = Object.fromEntries(fields.map(([name, , placeholder, required]) => [name, h('input', { id: `trust-${name}`, type: 'text', placeholder, required })])) as Record<(typeof fields)[number][0], HTMLInputElement>;
  const save = h('button', { type: 'submit' }, 'Save trust policy');
  const form = h(
    'form',
    { class: 'inline-form', hidden: true },
    fields.map(([name, label]) => h('div', { class: 'field' }, h('label', { for: `trust-${name}` }, label), inputs[name])),
    save,
  );
  const remove = h('button', { type: 'button', class: 'danger small', hidden: true }, 'Remove trust policy');

  function show(policy: GithubTrustPolicy | null): void {
    current.removeAttribute('aria-busy');
    remove.hidden = policy === null;
    if (!policy) return fill(current, h('p', {}, 'No GitHub workflow may deploy this site yet.'));
    for (const [name] of fields) inputs[name].value = policy[name] ?? '';
    fill(
      current,
      h(
        'dl',
        { class: 'facts', id: 'trust-policy' },
        h('dt', {}, 'Repository'),
        h('dd', {}, `${policy.repository} (id ${policy.repositoryId}, owner id ${policy.repositoryOwnerId})`),
        h('dt', {}, 'Workflow'),
        h('dd', {}, policy.workflow),
        h('dt', {}, 'Ref'),
        h('dd', {}, policy.ref ?? 'any'),
        h('dt', {}, 'Environment'),
        h('dd', {}, policy.environment ?? 'any'),
        h('dt', {}, 'Set'),
        h('dd', {}, timeElement(policy.modified)),
      ),
    );
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body: Record<string, string> = {};
    for (const [name] of fields) if (inputs[name].value.trim()) body[name] = inputs[name].value.trim();
    save.disabled = true;
    try {
      show(await request<GithubTrustPolicy>('PUT', sitePath(domain, '/trust/github'), { json: body }));
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, 'Saved: that workflow’s jobs with `permissions: id-token: write` deploy this site.'));
    } catch (error) {
      fill(feedback, errorMessage(error));
    } finally {
      save.disabled = false;
    }
  });
  remove.addEventListener('click', async () => {
    if (!(await confirmAction({ title: 'Remove the trust policy?', message: 'No GitHub workflow may deploy this site any more.', confirmLabel: 'Remove' }))) return;
    try {
      await request('DELETE', sitePath(domain, '/trust/github'));
      show(null);
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, 'Removed.'));
    } catch (error) {
      fill(feedback, errorMessage(error));
    }
  });

  void isOwner.then(async (owner) => {
    if (!owner) {
      current.removeAttribute('aria-busy');
      return fill(current, h('p', {}, 'Only the site’s owner sees and sets which GitHub workflow may deploy it.'));
    }
    form.hidden = false;
    try {
      show(await request<GithubTrustPolicy>('GET', sitePath(domain, '/trust/github')));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return show(null);
      current.removeAttribute('aria-busy');
      fill(current, errorMessage(error));
    }
  });

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'trust-heading' },
    h('h2', { id: 'trust-heading' }, 'Deploys from GitHub Actions'),
    h('p', { class: 'hint' }, 'No secret to store: the workflow named here deploys with its own identity (permissions: id-token: write).'),
    feedback,
    current,
    remove,
    form,
  );
}
