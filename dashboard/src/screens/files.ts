import type { DirectoryEntry, FileEntry, FileListing } from '../../../src/common/api-types';
import { formatBytes } from '../../../src/common/format-bytes';
import { ApiError } from '../../../src/common/received-problem';
import { encodePath, filesPath } from '../../../src/common/site-paths';
import { request } from '../api';
import { confirmAction } from '../dialog';
import { announce, fill, h } from '../dom';
import { timeElement } from '../format';
import { link } from '../router';
import { errorMessage, heading, type Screen, type ScreenContext } from '../screen';
import { siteUrl } from '../../../src/common/site-url';
import { sendWithProgress } from '../upload';

/** The files at the top of a deployment whose rules it is served with (src/rules/deployment-rules.ts), never served themselves. */
const rulesFiles = new Set(['/_redirects', '/_headers']);

/** Files: browse a site's folders, upload (add or replace) one file, delete one file; the rules files link to the rules. */
export function filesScreen(context: ScreenContext, domain: string, directory: string): Screen {
  const folder = directory.endsWith('/') ? directory : `${directory}/`;
  const title = heading(`Files of ${domain}`);
  const feedback = h('div', { 'aria-live': 'polite' });
  const listing = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading the folder…'));

  function breadcrumb(): HTMLElement {
    const parts = folder.split('/').filter(Boolean);
    const crumbs = [h('li', {}, h('a', { href: link({ screen: 'files', domain, directory: '/' }), 'aria-current': parts.length === 0 ? 'page' : undefined }, 'Root'))];
    parts.forEach((part, index) => {
      const path = `/${parts.slice(0, index + 1).join('/')}/`;
      crumbs.push(h('li', {}, h('a', { href: link({ screen: 'files', domain, directory: path }), 'aria-current': index === parts.length - 1 ? 'page' : undefined }, part)));
    });
    return h('nav', { 'aria-label': 'Folder' }, h('ol', { class: 'crumbs' }, crumbs));
  }

  async function remove(path: string): Promise<void> {
    const confirmed = await confirmAction({ title: `Delete ${path}?`, message: `The file is removed from the live site ${domain} at once.`, confirmLabel: 'Delete file' });
    if (!confirmed) return;
    try {
      await request('DELETE', filesPath(domain, path));
      announce(`${path} was deleted.`);
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, `${path} was deleted.`));
      await load();
      title.focus();
    } catch (error) {
      fill(feedback, errorMessage(error));
    }
  }

  function entryRow(entry: FileEntry | DirectoryEntry): HTMLTableRowElement {
    if (entry.type === 'directory') {
      return h(
        'tr',
        {},
        h('th', { scope: 'row', 'data-label': 'Name' }, h('a', { href: link({ screen: 'files', domain, directory: entry.path }) }, `${entry.name}/`)),
        h('td', { 'data-label': 'Size' }, '—'),
        h('td', { 'data-label': 'Type' }, 'Folder'),
        h('td', { 'data-label': 'Modified' }, '—'),
        h('td', {}),
      );
    }
    if (rulesFiles.has(entry.path)) {
      // Read into the deployment's rules when it is made, never served: shown as rules, not as a file to open or delete.
      const rules = link({ screen: 'rules', domain });
      return h(
        'tr',
        { 'data-rules-file': entry.name },
        h('th', { scope: 'row', 'data-label': 'Name' }, h('a', { href: rules }, entry.name)),
        h('td', { 'data-label': 'Size' }, formatBytes(entry.size)),
        h('td', { 'data-label': 'Type' }, 'Rules, read when deployed (not served)'),
        h('td', { 'data-label': 'Modified' }, timeElement(entry.modified)),
        h('td', {}, h('a', { href: rules, 'aria-label': `View the rules of ${entry.name}` }, 'View rules')),
      );
    }
    const live = new URL(encodePath(entry.path).slice(1), siteUrl(location, domain)).href;
    return h(
      'tr',
      {},
      h('th', { scope: 'row', 'data-label': 'Name' }, h('a', { href: live, target: '_blank', rel: 'noopener' }, entry.name)),
      h('td', { 'data-label': 'Size' }, formatBytes(entry.size)),
      h('td', { 'data-label': 'Type' }, entry.contentType),
      h('td', { 'data-label': 'Modified' }, timeElement(entry.modified)),
      h('td', {}, h('button', { type: 'button', class: 'danger small', 'aria-label': `Delete ${entry.path}`, onclick: () => remove(entry.path) }, 'Delete')),
    );
  }

  async function load(): Promise<void> {
    listing.setAttribute('aria-busy', 'true');
    try {
      const entries = await request<FileListing>('GET', filesPath(domain, folder, 'directory'));
      fill(
        listing,
        entries.length === 0
          ? h('p', {}, 'This folder is empty.')
          : h(
              'table',
              { class: 'responsive' },
              h('caption', { class: 'visually-hidden' }, `Contents of ${folder}`),
              h('thead', {}, h('tr', {}, ['Name', 'Size', 'Type', 'Modified', 'Actions'].map((name) => h('th', { scope: 'col' }, name)))),
              h('tbody', {}, entries.map(entryRow)),
            ),
      );
    } catch (error) {
      // The last file of a folder was deleted: the folder is gone with it.
      const gone = error instanceof ApiError && error.status === 404 && folder !== '/';
      fill(listing, gone ? h('p', {}, 'This folder is empty now. ', h('a', { href: link({ screen: 'files', domain, directory: '/' }) }, 'Back to the root')) : errorMessage(error));
    } finally {
      listing.removeAttribute('aria-busy');
    }
  }

  const fileInput = h('input', { id: 'upload-file', type: 'file', required: true });
  const pathInput = h('input', { id: 'upload-path', type: 'text', required: true, autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', 'aria-describedby': 'upload-path-hint', value: folder });
  const progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Upload progress' });
  const uploadButton = h('button', { type: 'submit' }, 'Upload');
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (file) pathInput.value = `${folder}${file.name}`;
  });

  async function upload(event: Event): Promise<void> {
    event.preventDefault();
    const file = fileInput.files?.[0];
    const path = `/${pathInput.value.trim().replace(/^\/+/, '')}`;
    if (!file) return fileInput.focus();
    uploadButton.disabled = true;
    progress.hidden = false;
    const sending = sendWithProgress<FileEntry>('PUT', filesPath(domain, path), file, (sent, total) => {
      progress.max = total;
      progress.value = sent;
    });
    context.signal.addEventListener('abort', () => sending.abort());
    try {
      const entry = await sending.done;
      announce(`Uploaded ${entry.path}.`);
      fill(feedback, h('div', { class: 'notice success', role: 'status' }, `Uploaded ${entry.path} (${formatBytes(file.size)}).`));
      await load();
    } catch (error) {
      fill(feedback, errorMessage(error));
    } finally {
      uploadButton.disabled = false;
      progress.hidden = true;
    }
  }

  void load();
  const element = h(
    'div',
    {},
    h('p', { class: 'breadcrumb' }, h('a', { href: link({ screen: 'site', domain }) }, domain)),
    title,
    breadcrumb(),
    feedback,
    listing,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'upload-heading' },
      h('h2', { id: 'upload-heading' }, 'Upload a file'),
      h(
        'form',
        { onsubmit: upload, class: 'inline-form' },
        h('div', { class: 'field' }, h('label', { for: 'upload-file' }, 'File'), fileInput),
        h('div', { class: 'field' }, h('label', { for: 'upload-path' }, 'Path on the site'), h('p', { id: 'upload-path-hint', class: 'hint' }, 'An existing file at this path is replaced.'), pathInput),
        h('div', { class: 'actions' }, uploadButton, progress),
      ),
    ),
  );
  return { title: `Files · ${domain}`, element };
}
