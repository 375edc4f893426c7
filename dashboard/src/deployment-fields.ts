import { aliasProblem, maxAliasLength, messageProblem } from '../../src/common/deployment-labels';
import { h } from './dom';

/** What a deploy says of its deployment besides its files: live or a preview, an alias, a message. */
export interface DeploymentChoice {
  preview: boolean;
  alias?: string;
  message?: string;
}

export interface DeploymentFields {
  element: HTMLElement;
  /** The choice, or undefined with the first invalid field focused and saying why. */
  check(): DeploymentChoice | undefined;
}

/** A text input checked as the person types by `problem` (the service's own rules); `hint` says what it is for. */
function checkedInput(id: string, label: string, hint: string, problem: (value: string) => string | undefined, attributes: Record<string, string | number> = {}) {
  const input = h('input', { id, name: id, type: 'text', autocomplete: 'off', 'aria-describedby': `${id}-hint ${id}-message`, ...attributes });
  const message = h('p', { id: `${id}-message`, class: 'hint', 'aria-live': 'polite' });
  const check = (): string | undefined | false => {
    const value = input.value.trim();
    const why = value === '' ? undefined : problem(value);
    message.textContent = why ? `This ${label.toLowerCase()} is refused: ${why}.` : '';
    message.className = why ? 'hint invalid' : 'hint';
    if (why) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
    return why ? false : value || undefined;
  };
  input.addEventListener('input', () => check());
  const element = h('div', { class: 'field' }, h('label', { for: id }, `${label} (optional)`), h('p', { id: `${id}-hint`, class: 'hint' }, hint), input, message);
  return { element, input, check };
}

/**
 * The deploy form's choices of what the deployment is: a preview (the live site stays as it is),
 * an alias (a stable preview address, as a branch has) and a message, checked in the page with
 * the service's own rules (src/common/deployment-labels.ts); the service stays the authority.
 */
export function deploymentFields(): DeploymentFields {
  const preview = h('input', { id: 'preview', name: 'preview', type: 'checkbox' });
  const alias = checkedInput(
    'alias',
    'Alias',
    'A stable preview address, <alias>--…, that always shows the newest deployment with this alias, as a branch has: lower-case letters, digits and single hyphens.',
    aliasProblem,
    { maxlength: maxAliasLength, spellcheck: 'false', autocapitalize: 'off', placeholder: 'feature-x' },
  );
  const message = checkedInput('message', 'Message', 'What this deployment is, shown in the list of deployments: a commit, a title.', messageProblem);
  const element = h(
    'fieldset',
    { class: 'field' },
    h('legend', {}, 'Deployment'),
    h('div', { class: 'checkbox' }, preview, h('label', { for: 'preview' }, 'Preview only: make the deployment without putting it live')),
    alias.element,
    message.element,
  );
  return {
    element,
    check() {
      const checked = [alias, message].map((field) => field.check());
      const invalid = checked.indexOf(false);
      if (invalid >= 0) {
        [alias, message][invalid]!.input.focus();
        return undefined;
      }
      const [aliasValue, messageValue] = checked as (string | undefined)[];
      return { preview: preview.checked, ...(aliasValue ? { alias: aliasValue } : {}), ...(messageValue ? { message: messageValue } : {}) };
    },
  };
}
