/**
 * What a site's stream carries for a reader who may not see its trust policy (`GET …/trust/github`
 * answers 403 to all but the owner and global_read): a `trust-change` says that the policy changed,
 * not what it is, so neither the repository nor its ids reach the site's members.
 */
import type { LoggedEvent } from './event';

/** `event` as a reader who may not see the trust policy receives it: a `trust-change` without `policy`. */
export function withoutTrust(event: LoggedEvent): LoggedEvent {
  if (event.type !== 'trust-change') return event;
  const { policy: _hidden, ...shown } = JSON.parse(event.data) as Record<string, unknown>;
  return { ...event, data: JSON.stringify(shown) };
}
