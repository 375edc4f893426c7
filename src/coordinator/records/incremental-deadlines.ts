/**
 * The deadlines of a domain's incremental deploys, kept in its coordinator's storage so that its
 * alarm collects a deploy left unfinished at its deadline (./kept-window.ts), even on a site that
 * never commits again. The Worker records a deploy before it writes the deployment's manifest and
 * row, so a stop at any instant leaves at worst a deadline with nothing to collect, never a row
 * that nothing collects. One per deployment: a deadline recorded while the alarm collects is
 * never overwritten by it.
 */
import { deadlineOf } from './kept-window';

/** An incremental deploy of `domain` whose deadline has passed. */
export interface DueDeadline {
  domain: string;
  deploymentId: string;
  /** Its storage key, to forget it once collected. */
  key: string;
}

type RecordedDeadline = Omit<DueDeadline, 'key'>;

const deadlinePrefix = 'incremental-deadline/';

/** Keys start with the deadline, so that they list in its order. */
function keyOf(deadline: number, deploymentId: string): string {
  return `${deadlinePrefix}${String(deadline).padStart(15, '0')}/${deploymentId}`;
}

function deadlineOfKey(key: string): number {
  return Number(key.slice(deadlinePrefix.length).split('/')[0]);
}

export class IncrementalDeadlines {
  constructor(private readonly storage: DurableObjectStorage) {}

  /** The incremental deploy `deploymentId`, begun at `created`, is collected at its deadline unless finalized by then. */
  record(domain: string, deploymentId: string, created: number): void {
    this.storage.kv.put(keyOf(deadlineOf(created), deploymentId), { domain, deploymentId } satisfies RecordedDeadline);
  }

  /** Every incremental deploy recorded and not yet collected: each holds its manifest, written once it is recorded. */
  deploymentIds(): string[] {
    return [...this.storage.kv.list<RecordedDeadline>({ prefix: deadlinePrefix })].map(([, deadline]) => deadline.deploymentId);
  }

  /** The deadlines that have passed, earliest first. */
  due(): DueDeadline[] {
    const due: DueDeadline[] = [];
    for (const [key, deadline] of this.storage.kv.list<RecordedDeadline>({ prefix: deadlinePrefix })) {
      if (deadlineOfKey(key) > Date.now()) break;
      due.push({ ...deadline, key });
    }
    return due;
  }

  /** `due` was collected (or turned out finalized): nothing is left to do at those deadlines. */
  forget(due: readonly DueDeadline[]): void {
    for (const { key } of due) this.storage.kv.delete(key);
  }

  /** The earliest deadline, if any. */
  nextDue(): number | undefined {
    for (const [key] of this.storage.kv.list({ prefix: deadlinePrefix, limit: 1 })) return deadlineOfKey(key);
    return undefined;
  }
}
