import type { ConfigurationRecord } from '../../../src/common/api-types';
import { ApiError } from '../../../src/common/received-problem';
import { sitePath } from '../../../src/common/site-paths';
import { request } from '../api';
import { announce, fill, h } from '../dom';
import { timeElement } from '../format';
import { jsonEditor } from '../json-editor';
import { link } from '../router';
import { errorMessage, heading, type Screen, type ScreenContext } from '../screen';

/** The configuration editor: host options as JSON, checked in the page, saved with PUT. */
export function configurationScreen(_context: ScreenContext, domain: string): Screen {
  const feedback = h('div', { 'aria-live': 'polite' });
  const body = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading the configuration…'));

  function render(record: ConfigurationRecord): void {
    const modified = h('p', { class: 'hint' }, 'Last changed ', timeElement(record.modified), '.');
    const editor = jsonEditor({
      id: 'configuration',
      label: 'Host options (JSON)',
      hint: 'Checked against the host schema as you save. Select an error to jump to its place.',
      value: JSON.stringify(record.configuration ?? {}, null, 2),
    });
    const save = h('button', { type: 'submit' }, 'Save configuration');

    async function submit(event: Event): Promise<void> {
      event.preventDefault();
      fill(feedback);
      const checked = editor.check();
      if (!checked.valid) {
        editor.element.querySelector<HTMLButtonElement>('.errors button')?.focus();
        return;
      }
      save.disabled = true;
      try {
        const saved = await request<ConfigurationRecord>('PUT', sitePath(domain, '/configuration'), { json: checked.value });
        editor.textarea.value = JSON.stringify(saved.configuration, null, 2);
        fill(modified, 'Saved ', timeElement(saved.modified), '.');
        fill(feedback, h('div', { class: 'notice success', role: 'status' }, 'The configuration was saved.'));
        announce('The configuration was saved.');
      } catch (error) {
        const pointed = error instanceof ApiError ? (error.problem.errors ?? []).filter((item) => 'pointer' in item) : [];
        if (pointed.length > 0) {
          editor.showErrors(`The server refused the configuration: ${(error as ApiError).problem.detail ?? ''}`, pointed);
          editor.element.querySelector<HTMLButtonElement>('.errors button')?.focus();
        } else {
          fill(feedback, errorMessage(error));
        }
      } finally {
        save.disabled = false;
      }
    }

    body.removeAttribute('aria-busy');
    fill(body, h('form', { onsubmit: submit, novalidate: true }, modified, editor.element, h('div', { class: 'actions' }, save)));
  }

  request<ConfigurationRecord>('GET', sitePath(domain, '/configuration')).then(render, (error: unknown) => {
    body.removeAttribute('aria-busy');
    fill(body, errorMessage(error));
  });

  const element = h(
    'div',
    { class: 'narrow' },
    h('p', { class: 'breadcrumb' }, h('a', { href: link({ screen: 'site', domain }) }, domain)),
    heading(`Configuration of ${domain}`),
    feedback,
    body,
  );
  return { title: `Configuration · ${domain}`, element };
}
