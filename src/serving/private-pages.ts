/**
 * What a protected host answers a visitor it does not let in. The pages say nothing of the site:
 * no title, no file names, not even whether the path exists; the same page for every path. Never
 * stored by any cache (`no-store`), and varying by what lets a visitor in.
 */
const style = 'body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:15vh auto;padding:0 1rem}input,button{font:inherit;padding:.4rem}';

function privatePage(status: number, title: string, body: string, vary: string, headers: Record<string, string> = {}): Response {
  const html = `<!doctype html>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width">\n<meta name="robots" content="noindex">\n<title>${title}</title>\n<style>${style}</style>\n<h1>${title}</h1>\n${body}\n`;
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      vary,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      // Not no-referrer: a browser then sends `Origin: null` with the sign-in form's post, which is refused.
      'referrer-policy': 'same-origin',
      ...headers,
    },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * A host only members' share links open. 401 with a challenge of the service's own scheme (RFC 9110
 * asks a 401 for one): no browser prompts for it, and it names no realm of the site.
 */
export function membersOnly(reason: 'none' | 'stale' = 'none'): Response {
  const why = reason === 'stale' ? '<p>The link you opened has expired or was revoked.</p>\n' : '';
  return privatePage(401, 'This site is private', `${why}<p>Ask one of its members for a link to it.</p>`, 'Cookie', { 'www-authenticate': 'Sitehost-Link' });
}

export interface SignInForm {
  /** Where the form posts: the sign-in path on the same host. */
  action: string;
  /** The path to return to after signing in. */
  returnTo: string;
  csrf: string;
  wrong?: boolean;
}

/** A host whose password lets visitors in: the sign-in form, posting to itself on the same host. */
export function passwordForm(form: SignInForm, status = 401): Response {
  const wrong = form.wrong ? '<p role="alert">That password is not right.</p>\n' : '';
  const body = `${wrong}<form method="post" action="${escapeHtml(form.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(form.csrf)}">
<input type="hidden" name="to" value="${escapeHtml(form.returnTo)}">
<label>Password <input type="password" name="password" autocomplete="current-password" required autofocus></label>
<button type="submit">Sign in</button>
</form>`;
  return privatePage(status, 'This site is protected', body, 'Cookie', { 'www-authenticate': 'Sitehost-Password' });
}

/** Too many sign-in attempts from one address. */
export function signInRateLimited(retryAfterSeconds: number): Response {
  return privatePage(429, 'Too many attempts', `<p>Too many sign-in attempts came from your address. Try again in ${retryAfterSeconds} seconds.</p>`, 'Cookie', { 'retry-after': String(retryAfterSeconds) });
}

/** A sign-in form posted from another page, or one too old: the form is shown again. */
export function signInRefused(): Response {
  return privatePage(403, 'Sign-in refused', '<p>The form was not this page’s, or it was too old. Go back and try again.</p>', 'Cookie');
}

/** Paths of a protected host answered with HTTP Basic: the browser asks for the user name and password. */
export function basicChallenge(realm: string): Response {
  return privatePage(401, 'Authentication required', '<p>This page needs a user name and password.</p>', 'Authorization', {
    'www-authenticate': `Basic realm="${realm.replace(/["\\]/g, '')}", charset="UTF-8"`,
  });
}
