/** A tiny element builder: the dashboard is vanilla DOM, and this keeps screens declarative. */
export type Child = Node | string | number | null | undefined | false;
type Attribute = string | number | boolean | null | undefined;
type Props = Record<string, Attribute | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  append(element, children.flat());
  return element;
}

export function append(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces all children of `parent`. */
export function fill(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, children.flat());
}

/** Says `message` to screen readers through the page's polite live region. */
export function announce(message: string): void {
  const status = document.getElementById('status');
  if (status) status.textContent = message;
}
