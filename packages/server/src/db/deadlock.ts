/** The error PostgreSQL answers to the one transaction it ends to break a deadlock. */
const DEADLOCK = '40P01';

export function isDeadlock(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === DEADLOCK;
}

/**
 * Runs `work`, a whole transaction, again when PostgreSQL ended it to break a deadlock, up to
 * `attempts` times: the other transaction went through, and this one starts anew, as if it had
 * come a moment later.
 */
export async function retryingDeadlocks<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isDeadlock(error) || attempt >= attempts) throw error;
    }
  }
}
