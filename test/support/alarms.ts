import { runDurableObjectAlarm } from 'cloudflare:test';
import { vi } from 'vitest';
import { coordinatorOf } from './deployments';

/**
 * Runs `domain`'s coordinator alarm as if `ms` had passed, rather than waiting it out: Date alone
 * is faked, for the coordinator runs in the test's isolate and reads the same clock. Whether an
 * alarm was set.
 */
export async function alarmAfter(domain: string, ms: number): Promise<boolean> {
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(Date.now() + ms);
    return await runDurableObjectAlarm(coordinatorOf(domain));
  } finally {
    vi.useRealTimers();
  }
}
