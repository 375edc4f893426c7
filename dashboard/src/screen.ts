import { ApiError } from '../../src/common/received-problem';
import { h } from './dom';
import { proofRecordFacts } from './domain-proof';
import type { PageConfig } from './page-config';

/** What every screen gets: the page's config and a signal that aborts when the person leaves the screen. */
export interface ScreenContext {
  config: PageConfig;
  signal: AbortSignal;
}

export interface Screen {
  title: string;
  element: HTMLElement;
}

/** The screen's heading; the router moves focus to it, so screen readers announce the new screen. */
export function heading(text: string): HTMLHeadingElement {
  return h('h1', { tabindex: -1 }, text);
}

/** An error for the person to read: the problem's title and detail, and a DNS record to add when a claim waits for one (role=alert announces it). */
export function errorMessage(error: unknown): HTMLElement {
  if (error instanceof ApiError) {
    const { title, detail, status, record } = error.problem;
    return h(
      'div',
      { class: 'notice error', role: 'alert' },
      h('strong', {}, `${title} (${status})`),
      detail ? h('p', {}, detail) : null,
      record ? proofRecordFacts(record) : null,
    );
  }
  return h('div', { class: 'notice error', role: 'alert' }, h('strong', {}, error instanceof Error ? error.message : String(error)));
}
