import { Problem } from '../../src/http/problem';

/**
 * What a rule that throws problems answers, as one comparable line for table-driven tests:
 * `ok`, or `<status> <kind>` followed by the 413's `limit=value` when it names one.
 */
export function outcomeOf(rule: () => unknown): string {
  try {
    rule();
    return 'ok';
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const { limit, value } = error.options.extensions ?? {};
    return limit === undefined ? `${error.status} ${error.kind}` : `${error.status} ${error.kind} ${String(limit)}=${String(value)}`;
  }
}
