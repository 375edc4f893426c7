import { parseDomain } from '../../src/platform/domain-name';
import { Problem } from '../../src/http/problem';
import { h } from './dom';

export interface DomainField {
  element: HTMLElement;
  input: HTMLInputElement;
  /** The normalised domain (punycode, lower case) or undefined, showing why not. */
  check(): string | undefined;
}

/**
 * The domain input, validated as the person types with the server's own rules
 * (src/platform/domain-name.ts, bundled into the page); the server stays the authority on deploy.
 */
export function domainField(apiHostnames: readonly string[], initial = ''): DomainField {
  const input = h('input', {
    id: 'domain',
    name: 'domain',
    type: 'text',
    inputmode: 'url',
    required: true,
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    placeholder: 'example.com',
    'aria-describedby': 'domain-hint domain-message',
  });
  input.value = initial;
  const message = h('p', { id: 'domain-message', class: 'hint', 'aria-live': 'polite' });

  function check(): string | undefined {
    const value = input.value.trim();
    if (value === '') {
      input.removeAttribute('aria-invalid');
      message.textContent = '';
      message.className = 'hint';
      return undefined;
    }
    try {
      const domain = parseDomain(value, apiHostnames);
      input.removeAttribute('aria-invalid');
      message.className = 'hint valid';
      message.textContent = domain === value ? `✓ ${domain}` : `✓ Deploys as ${domain}`;
      return domain;
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      input.setAttribute('aria-invalid', 'true');
      message.className = 'hint invalid';
      message.textContent = error.detail;
      return undefined;
    }
  }

  input.addEventListener('input', () => check());
  const element = h(
    'div',
    { class: 'field' },
    h('label', { for: 'domain' }, 'Domain'),
    h('p', { id: 'domain-hint', class: 'hint' }, 'The name the site answers to, like example.com.'),
    input,
    message,
  );
  if (initial) check();
  return { element, input, check };
}
