import type { Deployment } from '../../../src/common/api-types';
import { aliasHostNote } from '../../../src/common/deployment-labels';
import { formatBytes } from '../../../src/common/format-bytes';
import { ApiError } from '../../../src/common/received-problem';
import { sitePath } from '../../../src/common/site-paths';
import { domainField } from '../domain-field';
import { announce, type Child, fill, h } from '../dom';
import { type SelectedFile, filesFromDrop, filesFromInput } from '../folder';
import { jsonEditor } from '../json-editor';
import { link } from '../router';
import { errorMessage, heading, type Screen, type ScreenContext } from '../screen';
import { siteUrl } from '../../../src/common/site-url';
import { sendWithProgress } from '../upload';
import { type DeployOutcome, type UploadPlan, deployFolder } from '../incremental-deploy';
import { type DeploymentChoice, deploymentFields } from '../deployment-fields';
import { request } from '../api';
import { opensWithShareLink } from '../share';

const LISTED_PATHS = 20;

/**
 * Deploy: a domain, a folder (dropped or chosen), optional host options, and what the deployment is
 * (live or a preview, an alias, a message), sent incrementally (or, for host options alone, as the
 * multipart deploy form).
 */
export function deployScreen(context: ScreenContext, initialDomain?: string): Screen {
  const domain = domainField(context.config.apiHostnames, initialDomain);
  let selected: SelectedFile[] = [];

  const folderInput = h('input', { id: 'folder', name: 'directory', type: 'file', webkitdirectory: true, multiple: true, class: 'visually-hidden-input', 'aria-describedby': 'folder-summary' });
  const folderSummary = h('div', { id: 'folder-summary', class: 'hint', 'aria-live': 'polite' }, 'No folder chosen.');
  const dropZone = h(
    'div',
    { class: 'dropzone' },
    h('p', {}, 'Drop a folder here, or'),
    h('label', { for: 'folder', class: 'button secondary' }, 'Choose a folder…'),
    folderInput,
    folderSummary,
  );

  function choose(files: SelectedFile[]): void {
    selected = files;
    const total = files.reduce((sum, { file }) => sum + file.size, 0);
    const root = files[0]?.path.split('/')[0];
    fill(
      folderSummary,
      h('p', {}, files.length === 0 ? 'The folder is empty.' : `${files.length} ${files.length === 1 ? 'file' : 'files'}, ${formatBytes(total)}${root && files.every((f) => f.path.startsWith(`${root}/`)) ? ` from “${root}”` : ''}.`),
      files.length > 0 &&
        h(
          'details',
          {},
          h('summary', {}, 'Show files'),
          h('ul', { class: 'paths' }, files.slice(0, LISTED_PATHS).map(({ path }) => h('li', {}, h('code', {}, path)))),
          files.length > LISTED_PATHS && h('p', {}, `…and ${files.length - LISTED_PATHS} more.`),
        ),
    );
  }

  folderInput.addEventListener('change', () => choose(filesFromInput(folderInput)));
  dropZone.addEventListener('dragover', (event) => {
    event.preventDefault();
    dropZone.classList.add('dragging');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('dragging'));
  dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    dropZone.classList.remove('dragging');
    if (event.dataTransfer) filesFromDrop(event.dataTransfer).then(choose, (error: unknown) => fill(folderSummary, errorMessage(error)));
  });

  const configuration = jsonEditor({
    id: 'deploy-configuration',
    label: 'Configuration (optional)',
    hint: 'Host options as JSON, for example {"fallback": {"200": "/index.html"}} for a single-page app. Leave empty to keep the current configuration.',
    value: '',
    rows: 5,
    optional: true,
  });

  const fields = deploymentFields();
  const submit = h('button', { type: 'submit' }, 'Deploy');
  const cancel = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Cancel upload');
  const progress = h('progress', { id: 'upload-progress', max: 1, value: 0, 'aria-labelledby': 'progress-text' });
  const progressText = h('p', { id: 'progress-text', 'aria-live': 'polite' });
  const progressBox = h('div', { class: 'progress', hidden: true }, progress, progressText);
  const outcome = h('div', { id: 'deploy-outcome' });

  async function deploy(event: Event): Promise<void> {
    event.preventDefault();
    fill(outcome);
    const target = domain.check();
    if (!target) {
      if (!domain.input.value.trim()) domain.check();
      domain.input.focus();
      return;
    }
    const options = configuration.check();
    if (!options.valid) {
      configuration.textarea.focus();
      return;
    }
    const choice = fields.check();
    if (!choice) return;
    if (selected.length === 0 && options.value === undefined) {
      fill(outcome, errorMessage(new Error('Choose a folder, a configuration, or both.')));
      return;
    }
    submit.disabled = true;
    cancel.hidden = false;
    progressBox.hidden = false;
    progress.value = 0;
    progress.max = 1;
    progressText.textContent = 'Starting the upload…';
    const aborter = new AbortController();
    const stop = () => aborter.abort(new DOMException('The upload was cancelled.', 'AbortError'));
    cancel.addEventListener('click', stop);
    context.signal.addEventListener('abort', stop);
    try {
      const { result, plan } =
        selected.length > 0 ? await sendFolder(target, options.value, choice, aborter.signal) : await sendConfiguration(target, options.value, choice, aborter.signal);
      progress.value = progress.max;
      progressText.textContent = `Sent ${formatBytes(plan?.sendBytes ?? progress.max)}: ${'type' in result ? 'published' : 'preview ready'}.`;
      await showResult(target, result, plan, choice);
    } catch (error) {
      progressBox.hidden = true;
      const pointed = error instanceof ApiError ? (error.problem.errors ?? []).filter((item) => 'pointer' in item) : [];
      if (pointed.length > 0 && options.value !== undefined) configuration.showErrors('The server refused the configuration.', pointed);
      fill(outcome, errorMessage(error));
    } finally {
      submit.disabled = false;
      cancel.hidden = true;
      cancel.removeEventListener('click', stop);
      context.signal.removeEventListener('abort', stop);
    }
  }

  /** Shows bytes sent of `total`, speaking at most every 25 % lest the live region chatter. */
  let lastAnnounced = 0;
  function showProgress(sent: number, total: number): void {
    progress.max = Math.max(total, 1);
    progress.value = sent;
    const percent = total === 0 ? 100 : Math.floor((sent / total) * 100);
    if (percent - lastAnnounced >= 25 || sent === total) {
      lastAnnounced = percent;
      progressText.textContent = sent === total ? `Sent ${formatBytes(total)}; the server is publishing the site…` : `Sent ${formatBytes(sent)} of ${formatBytes(total)} (${percent}%)`;
    }
  }

  /** A folder, incrementally: only the files whose content the service lacks are sent. */
  function sendFolder(target: string, hostOptions: unknown, choice: DeploymentChoice, signal: AbortSignal): Promise<{ result: DeployOutcome; plan: UploadPlan }> {
    lastAnnounced = 0;
    let total = 0;
    return deployFolder(target, selected, hostOptions, choice, {
      onHashing: (files) => (progressText.textContent = `Checking ${files} ${files === 1 ? 'file' : 'files'}…`),
      onPlan: (plan) => {
        total = plan.sendBytes;
        progressText.textContent = `${plan.skippedFiles} ${plan.skippedFiles === 1 ? 'file' : 'files'} (${formatBytes(plan.skippedBytes)}) already stored; sending ${plan.sendFiles}…`;
      },
      onBytes: (sent) => showProgress(sent, total),
    }, signal);
  }

  /** Host options alone: the multipart deploy keeps the site's files. */
  async function sendConfiguration(target: string, hostOptions: unknown, choice: DeploymentChoice, signal: AbortSignal): Promise<{ result: DeployOutcome; plan?: UploadPlan }> {
    lastAnnounced = 0;
    const form = new FormData();
    form.append('configuration', JSON.stringify(hostOptions));
    if (choice.alias) form.append('alias', choice.alias);
    if (choice.message) form.append('message', choice.message);
    const upload = sendWithProgress<DeployOutcome>('PUT', `${sitePath(target)}${choice.preview ? '?preview=true' : ''}`, form, showProgress);
    signal.addEventListener('abort', () => upload.abort());
    return { result: await upload.done };
  }

  /**
   * What the deploy made: a live deployment (or none, when the site served this already) or a
   * preview, with its links; an alias's address comes with the deployment.
   */
  async function showResult(target: string, result: DeployOutcome, plan: UploadPlan | undefined, choice: DeploymentChoice): Promise<void> {
    const live = 'type' in result;
    const id = live ? result.deploymentId : result.id;
    const deployment: Deployment | undefined = live ? (choice.alias ? await request<Deployment>('GET', sitePath(target, `/deployments/${encodeURIComponent(id)}`)) : undefined) : result;
    const yesNo = (value: boolean) => (value ? 'Yes' : 'No');
    const title = !live ? `Preview of ${target}` : result.unchanged ? `${target} serves this already` : `Deployed ${target}`;
    const resultHeading = h('h2', { id: 'deploy-result-heading', tabindex: -1 }, title);
    const fact = (name: string, label: string, value: Child | Child[]) => [h('dt', {}, label), h('dd', { 'data-fact': name }, value)];
    fill(
      outcome,
      h(
        'section',
        { class: 'notice success', 'aria-labelledby': 'deploy-result-heading' },
        resultHeading,
        live && result.unchanged && h('p', { id: 'unchanged-note' }, 'No new deployment was made: the live deployment has these files and host options already.'),
        !live && h('p', {}, 'The live site is unchanged.'),
        h(
          'dl',
          { class: 'facts' },
          live && [
            ...fact('isNewDomain', 'New domain', yesNo(result.isNewDomain)),
            ...fact('hasNewFiles', 'New files', yesNo(result.hasNewFiles)),
            ...fact('hasNewConfiguration', 'New configuration', yesNo(result.hasNewConfiguration)),
          ],
          plan && [...fact('sent', 'Files sent', `${plan.sendFiles} (${formatBytes(plan.sendBytes)})`), ...fact('skipped', 'Already stored, skipped', `${plan.skippedFiles} (${formatBytes(plan.skippedBytes)})`)],
          fact('deploymentId', 'Deployment', h('code', {}, id)),
          deployment?.aliasUrl &&
            fact('alias', 'Alias', [
              opensWithShareLink(h('a', { href: deployment.aliasUrl, target: '_blank', rel: 'noopener', id: 'alias-link' }, deployment.aliasUrl), target, deployment.alias ? { alias: deployment.alias } : {}),
              h('p', { class: 'hint', id: 'alias-note' }, aliasHostNote(target, deployment.aliasUrl)),
            ]),
        ),
        h(
          'p',
          { class: 'links' },
          live
            ? opensWithShareLink(h('a', { href: siteUrl(location, target), target: '_blank', rel: 'noopener', id: 'live-link' }, `Open ${siteUrl(location, target)}`), target, {})
            : opensWithShareLink(h('a', { href: result.previewUrl, target: '_blank', rel: 'noopener', id: 'preview-link' }, 'Open the preview'), target, { deploymentId: id }),
          h('a', { href: link({ screen: 'site', domain: target }) }, 'Manage the site'),
        ),
      ),
    );
    announce(title);
    resultHeading.focus();
  }

  const element = h(
    'div',
    { class: 'narrow' },
    heading('Deploy a site'),
    h(
      'form',
      { onsubmit: deploy, novalidate: true },
      domain.element,
      h('fieldset', { class: 'field' }, h('legend', {}, 'Site folder'), dropZone),
      configuration.element,
      fields.element,
      h('div', { class: 'actions' }, submit, cancel),
      progressBox,
    ),
    outcome,
  );
  return { title: 'Deploy', element };
}
