import { ApiError } from '../../../src/common/received-problem';
import { request } from '../api';
import { fill, h } from '../dom';
import { startSignIn } from '../openid';
import { errorMessage, heading, type Screen, type ScreenContext } from '../screen';
import { forgetToken, keepToken } from '../session';

/** Sign in by pasting a token, or through the identity provider when one is configured. */
export function signInScreen(context: ScreenContext, onSignedIn: () => void, problem?: unknown): Screen {
  const feedback = h('div', { 'aria-live': 'polite' }, problem ? errorMessage(problem) : null);
  const token = h('textarea', {
    id: 'token',
    name: 'token',
    rows: 4,
    required: true,
    spellcheck: 'false',
    autocapitalize: 'off',
    autocomplete: 'off',
    class: 'code',
    'aria-describedby': 'token-hint',
  });
  const submit = h('button', { type: 'submit' }, 'Sign in');

  async function signIn(event: Event): Promise<void> {
    event.preventDefault();
    const value = token.value.trim().replace(/^Bearer\s+/i, '');
    if (!value) return;
    keepToken(value);
    submit.disabled = true;
    try {
      // A cheap call that needs a valid token: refuses an expired or foreign one right here.
      await request('GET', '/v2/sites');
      onSignedIn();
    } catch (error) {
      // A token without the deploy scope is still a valid sign-in (global_read can browse).
      if (error instanceof ApiError && error.status === 403) return onSignedIn();
      forgetToken();
      fill(feedback, errorMessage(error));
      token.focus();
    } finally {
      submit.disabled = false;
    }
  }

  const openId = context.config.openId;
  const provider = openId
    ? h(
        'section',
        { class: 'card', 'aria-labelledby': 'provider-heading' },
        h('h2', { id: 'provider-heading' }, 'With your account'),
        h(
          'button',
          {
            type: 'button',
            onclick: () => startSignIn(openId).catch((error: unknown) => fill(feedback, errorMessage(error))),
          },
          `Sign in with ${new URL(openId.issuer).host}`,
        ),
      )
    : null;

  const element = h(
    'div',
    { class: 'narrow' },
    heading('Sign in'),
    feedback,
    provider,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'token-heading' },
      h('h2', { id: 'token-heading' }, 'With a token'),
      h(
        'form',
        { onsubmit: signIn },
        h(
          'div',
          { class: 'field' },
          h('label', { for: 'token' }, 'API token'),
          h(
            'p',
            { id: 'token-hint', class: 'hint' },
            'Kept in this tab only. Locally, print one with ',
            h('code', {}, "npm run token -- --user 'github|1' --scope deploy,global_read"),
          ),
          token,
        ),
        submit,
      ),
    ),
  );
  return { title: 'Sign in', element };
}
