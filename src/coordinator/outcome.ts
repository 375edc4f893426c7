import { Problem, type ProblemData } from '../http/problem';

/**
 * What a change returns across RPC: its value, or the problem to answer (class instances do not
 * cross). `purgePending`: the change is committed, but Cloudflare has not accepted its purge yet
 * (docs/serving.md): locations may serve what it replaced a little longer.
 */
export type Outcome<T> = { ok: true; value: T; purgePending?: true } | { ok: false; problem: ProblemData };

/** Runs `change`, returning its problem as data instead of throwing it; other errors pass through. */
export async function outcomeOf<T>(change: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await change() };
  } catch (error) {
    if (error instanceof Problem) return { ok: false, problem: error.toData() };
    throw error;
  }
}

/** The value of an outcome, or its problem thrown again on this side of the call. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw Problem.from(outcome.problem);
}
