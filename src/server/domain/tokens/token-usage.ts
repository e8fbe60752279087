// When each API token was last used (SPEC §11), recorded without a write per request. Every verification notes the
// token here, in memory; the notes are written in one pass at most once a minute (`intervalMs`), and when the
// process stops. So `last_used_at` is at most about a minute behind, costs one UPDATE per token per minute per
// process, and no request — a Found create, a lookup — ever waits on or causes a write of its own: SPEC §4.1's
// write-free Found stays write-free (its "last used" is the caller's last-used create settings, which a Found never
// touches; this is bookkeeping of the credential, like the request log). One per Services (`services.tokenUsage`).

export interface TokenUse {
  id: string;
  at: string;
}

export class TokenUsage {
  private readonly pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly write: (uses: TokenUse[]) => Promise<void>,
    private readonly intervalMs = 60_000,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** The token was used at `at` (ms). A Map write; the first note after a flush schedules the next one. */
  note(id: string, at = Date.now()): void {
    const seen = this.pending.get(id);
    if (seen === undefined || at > seen) this.pending.set(id, at);
    if (!this.timer && !this.closed) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes what was noted since the last flush. A write that fails keeps its notes for the next one. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const uses = [...this.pending].map(([id, at]) => ({ id, at: new Date(at).toISOString() }));
    this.pending.clear();
    try {
      await this.write(uses);
    } catch (err) {
      for (const use of uses) this.note(use.id, Date.parse(use.at));
      this.onError(err);
    }
  }

  /** The process is stopping: write what is noted, and schedule nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}
