import { type Node as JsonNode, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { validateHostConfiguration } from '../../src/configuration/host-schema';
import type { PointerError } from '../../src/common/api-types';
import { fill, h } from './dom';

/** How long typing pauses before the text is checked, with `checkAsTyped`. */
const checkDelayMs = 300;

/** An error placed in the editor's text: where to select when the person asks to see it (syntax errors have no pointer). */
interface PlacedError {
  pointer?: string;
  message: string;
  offset: number;
  length: number;
  line: number;
}

export interface JsonEditor {
  element: HTMLElement;
  textarea: HTMLTextAreaElement;
  /** The parsed host options when the text is valid (checked against schema/host.schema.json); shows the errors otherwise. */
  check(): { valid: true; value: unknown } | { valid: false };
  /** Shows errors (from this page's checks or the server's problem) at their places in the text. */
  showErrors(summary: string, errors: readonly PointerError[]): void;
  clearErrors(): void;
}

/**
 * A JSON textarea for host options with errors listed below it; each error is a button that
 * selects the offending value in the text. The same schema module as the server's
 * (src/configuration/host-schema.ts) validates it, so both speak the same pointers and words.
 */
export function jsonEditor(options: { id: string; label: string; hint: string; value: string; rows?: number; optional?: boolean; checkAsTyped?: boolean }): JsonEditor {
  const hintId = `${options.id}-hint`;
  const errorsId = `${options.id}-errors`;
  const textarea = h('textarea', {
    id: options.id,
    class: 'code',
    rows: options.rows ?? 14,
    spellcheck: 'false',
    autocapitalize: 'off',
    autocomplete: 'off',
    'aria-describedby': `${hintId} ${errorsId}`,
  });
  textarea.value = options.value;
  const errorList = h('div', { id: errorsId, class: 'errors', 'aria-live': 'polite' });
  const element = h(
    'div',
    { class: 'field' },
    h('label', { for: options.id }, options.label),
    h('p', { id: hintId, class: 'hint' }, options.hint),
    textarea,
    errorList,
  );

  function clearErrors(): void {
    textarea.removeAttribute('aria-invalid');
    fill(errorList);
  }

  function render(summary: string, errors: readonly PlacedError[]): void {
    textarea.setAttribute('aria-invalid', 'true');
    fill(
      errorList,
      h('p', { class: 'error' }, summary),
      h(
        'ul',
        {},
        errors.map((error) =>
          h(
            'li',
            {},
            h(
              'button',
              { type: 'button', class: 'link', 'data-pointer': error.pointer, onclick: () => select(textarea, error) },
              error.pointer !== undefined && h('code', {}, error.pointer || '(whole document)'),
              ` ${error.message} `,
              h('span', { class: 'hint' }, `(line ${error.line})`),
            ),
          ),
        ),
      ),
    );
  }

  function showErrors(summary: string, errors: readonly PointerError[]): void {
    const tree = parseTree(textarea.value);
    render(summary, errors.map((error) => place(textarea.value, tree, error)));
  }

  /** A check waiting for typing to pause (`checkAsTyped`); any check makes it unneeded. */
  let pending: ReturnType<typeof setTimeout> | undefined;

  function check(): { valid: true; value: unknown } | { valid: false } {
    clearTimeout(pending);
    const text = textarea.value;
    if (options.optional && text.trim() === '') {
      clearErrors();
      return { valid: true, value: undefined };
    }
    const syntax: ParseError[] = [];
    parseTree(text, syntax, { disallowComments: true, allowTrailingComma: false });
    if (syntax.length > 0) {
      render(
        'This is not valid JSON.',
        syntax.map((error) => ({ message: words(printParseErrorCode(error.error)), ...at(text, error.offset, error.length) })),
      );
      return { valid: false };
    }
    const value: unknown = JSON.parse(text);
    const errors = validateHostConfiguration(value);
    if (errors.length > 0) {
      showErrors(`The configuration does not match the host schema (${errors.length} ${errors.length === 1 ? 'problem' : 'problems'}).`, errors);
      return { valid: false };
    }
    clearErrors();
    return { valid: true, value };
  }

  if (options.checkAsTyped) {
    // Checked once typing pauses, so that the list of errors (a live region) does not change on every key.
    textarea.addEventListener('input', () => {
      clearTimeout(pending);
      pending = setTimeout(check, checkDelayMs);
    });
  }

  return { element, textarea, check, showErrors, clearErrors };
}

function select(textarea: HTMLTextAreaElement, error: { offset: number; length: number }): void {
  textarea.focus();
  textarea.setSelectionRange(error.offset, error.offset + error.length);
}

/** "CommaExpected" -> "Comma expected". */
function words(code: string): string {
  const spaced = code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

function at(text: string, offset: number, length: number): { offset: number; length: number; line: number } {
  return { offset, length, line: text.slice(0, offset).split('\n').length };
}

/**
 * Finds the text a JSON Pointer (RFC 6901) names: the member (key and value) or element, or
 * its nearest existing ancestor when it names something missing (a required property).
 */
function place(text: string, tree: JsonNode | undefined, error: PointerError): PlacedError {
  let node = tree;
  const tokens = error.pointer === '' ? [] : error.pointer.slice(1).split('/').map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
  for (const token of tokens) {
    const next = childOf(node, token);
    if (!next) break;
    node = next;
  }
  const target = node?.parent?.type === 'property' ? node.parent : node;
  return { ...error, ...(target ? at(text, target.offset, target.length) : at(text, 0, 0)) };
}

function childOf(node: JsonNode | undefined, token: string): JsonNode | undefined {
  if (node?.type === 'object') {
    return node.children?.find((property) => property.children?.[0]?.value === token)?.children?.[1];
  }
  if (node?.type === 'array' && /^(0|[1-9]\d*)$/.test(token)) return node.children?.[Number(token)];
  return undefined;
}
