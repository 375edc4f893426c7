import { h } from './dom';

interface Confirmation {
  title: string;
  message: string;
  confirmLabel: string;
  /** `danger` (the default) for what cannot be undone; `primary` for what can. */
  tone?: 'danger' | 'primary';
}

/**
 * Asks for confirmation in a modal `<dialog>`: the browser traps focus inside it, Escape
 * cancels, and focus returns to the control that opened it. Cancel has the initial focus, so
 * a stray Enter never destroys anything.
 */
export function confirmAction({ title, message, confirmLabel, tone = 'danger' }: Confirmation): Promise<boolean> {
  const titleId = `dialog-title-${Date.now()}`;
  const dialog = h(
    'dialog',
    { class: 'confirm', 'aria-labelledby': titleId },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: titleId }, title),
      h('p', {}, message),
      h(
        'div',
        { class: 'actions' },
        h('button', { value: 'cancel', class: 'secondary', autofocus: true }, 'Cancel'),
        h('button', { value: 'confirm', class: tone === 'danger' ? 'danger' : undefined }, confirmLabel),
      ),
    ),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    dialog.showModal();
  });
}
