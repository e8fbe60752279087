// Failed console sign-ins per key (SPEC §11): the table every server process shares, so an attacker cannot spread
// guesses over several of them. Each update is a compare-and-set on `version` (or an insert that loses to a
// concurrent one), so two processes counting the same key at once never lose a count; the policy — how many
// failures are free, how long a key waits, when it is forgotten — is auth/sign-in-throttle.ts's. On the driver.
import type { Sql } from '../types';
import { num, str } from '../values';

export interface ThrottleCount {
  failures: number;
  lastFailureAt: string;
  version: number;
}

export class SignInThrottleRepository {
  constructor(private readonly sql: Sql) {}

  async find(key: string): Promise<ThrottleCount | undefined> {
    const row = await this.sql.one<{ failures: unknown; last_failure_at: unknown; version: unknown }>(
      'SELECT failures, last_failure_at, version FROM sign_in_throttles WHERE key = $1',
      [key],
    );
    return row
      ? { failures: num(row.failures), lastFailureAt: str(row.last_failure_at), version: num(row.version) }
      : undefined;
  }

  /**
   * Writes the key's new count: from `expected` (the row as read; undefined when there was none). False when another
   * process changed it first — the caller reads again.
   */
  async write(key: string, expected: ThrottleCount | undefined, failures: number, at: string): Promise<boolean> {
    if (!expected) {
      return (
        (await this.sql.run(
          'INSERT INTO sign_in_throttles (key, failures, last_failure_at, version) VALUES ($1, $2, $3, 1) ON CONFLICT (key) DO NOTHING',
          [key, failures, at],
        )) === 1
      );
    }
    return (
      (await this.sql.run(
        'UPDATE sign_in_throttles SET failures = $2, last_failure_at = $3, version = version + 1 WHERE key = $1 AND version = $4',
        [key, failures, at, expected.version],
      )) === 1
    );
  }

  /** Moves the latest failure's time forward to `at` (when the attempt was known to have failed). */
  async stamp(key: string, at: string): Promise<void> {
    await this.sql.run(
      'UPDATE sign_in_throttles SET last_failure_at = $2, version = version + 1 WHERE key = $1 AND last_failure_at < $2',
      [key, at],
    );
  }

  /** Takes back one counted attempt (it turned out to be a success). */
  async refund(key: string): Promise<void> {
    await this.sql.run(
      'UPDATE sign_in_throttles SET failures = failures - 1, version = version + 1 WHERE key = $1 AND failures > 0',
      [key],
    );
  }

  async forget(key: string): Promise<void> {
    await this.sql.run('DELETE FROM sign_in_throttles WHERE key = $1', [key]);
  }

  /** Drops keys whose last failure is older than `before` (idx_sign_in_throttles_last_failure). */
  async sweep(before: string): Promise<void> {
    await this.sql.run('DELETE FROM sign_in_throttles WHERE last_failure_at < $1', [before]);
  }
}
