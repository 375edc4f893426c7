import type { ConfigurationRecord } from '../../../src/common/api-types';
import { ApiError } from '../../../src/common/received-problem';
import { sitePath } from '../../../src/common/site-paths';
import { request } from '../api';
import { announce, fill, h } from '../dom';
import { timeElement } from '../format';
import { jsonEditor } from '../json-editor';
import { describeAt, optionsGuide } from '../options-guide';
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
      hint: 'Checked against the host schema as you type, and again as you save. Select an error to jump to its place; the options are described below.',
      value: JSON.stringify(record.configuration ?? {}, null, 2),
      checkAsTyped: true,
    });
    // What the option at the cursor is: its path and the schema's description of it. Part of the
    // text's description rather than a live region, which would speak at every move of the cursor.
    const atCursor = h('p', { id: 'configuration-context', class: 'hint' });
    editor.textarea.setAttribute('aria-describedby', `${editor.textarea.getAttribute('aria-describedby')} configuration-context`);
    const showContext = () => {
      const described = describeAt(editor.textarea.value, editor.textarea.selectionStart);
      fill(atCursor, described && [h('code', {}, described.path), `: ${described.description ?? 'not an option of the host schema.'}`]);
    };
    for (const type of ['keyup', 'click', 'input', 'focus']) editor.textarea.addEventListener(type, showContext);
    editor.textarea.after(atCursor);
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
    fill(
      body,
      h('form', { onsubmit: submit, novalidate: true }, modified, editor.element, h('div', { class: 'actions' }, save)),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'options-guide-heading' },
        h('h2', { id: 'options-guide-heading' }, 'Host options'),
        h('p', { class: 'hint' }, 'What each option does, from schema/host.schema.json, which checks the text above. Redirects and header rules of the deployed _redirects and _headers files are shown with these on the site’s ', h('a', { href: link({ screen: 'rules', domain }) }, 'rules'), '.'),
        optionsGuide(),
      ),
    );
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
