// The rows SQLite's remembered reads keep (sqlite.ts, `rememberedOne`), bounded by count and by an estimate of their
// bytes: the oldest go first. What proves a row current is the driver's business; this only holds the rows.

/**
 * The most rows kept; a task's row is ~0.7 KB in memory when its description is short. Beyond it a lookup is read from
 * the file as before.
 */
export const REMEMBERED_MAX = 16_384;

/**
 * What the kept rows may take in all, estimated from their text (rowBytes): a description may hold 100,000 characters,
 * and 16,384 such rows would not fit in the server's heap. A row estimated above 1/256 of it (~128 KB, a description of
 * ~64,000 characters) is not kept at all — read from the file each time.
 */
export const REMEMBERED_MAX_BYTES = 32 * 1024 * 1024;

/** A kept row's size, over-estimated: two bytes per character of its text, and 64 per field. */
export function rowBytes(row: object): number {
  let bytes = 0;
  for (const value of Object.values(row)) bytes += 64 + (typeof value === 'string' ? 2 * value.length : 0);
  return bytes;
}

/** A kept row, and what proves it current: `data_version` and `total_changes()` when it was read. */
export interface RememberedRow {
  row: object;
  bytes: number;
  dataVersion: unknown;
  changes: unknown;
}

export class RememberedRows {
  private readonly rows = new Map<string, RememberedRow>();
  private bytes = 0;
  /** How many rows are kept at most (REMEMBERED_MAX; tests lower it). */
  limit = REMEMBERED_MAX;
  /** What they may take in all (REMEMBERED_MAX_BYTES; tests lower it). */
  bytesLimit = REMEMBERED_MAX_BYTES;
  /** The largest row kept (a 256th of REMEMBERED_MAX_BYTES; tests lower it). */
  rowBytesLimit = REMEMBERED_MAX_BYTES / 256;

  get(key: string): RememberedRow | undefined {
    return this.rows.get(key);
  }

  /** Keeps `row` under `key` (or only forgets the key's old row, when `row` is missing or too large). */
  keep(key: string, row: object | undefined, dataVersion: unknown, changes: unknown): void {
    this.drop(key);
    if (!row) return;
    const bytes = rowBytes(row);
    if (bytes > this.rowBytesLimit) return;
    while (this.rows.size > 0 && (this.rows.size >= this.limit || this.bytes + bytes > this.bytesLimit)) {
      this.drop(this.rows.keys().next().value!); // the oldest
    }
    this.rows.set(key, { row, bytes, dataVersion, changes });
    this.bytes += bytes;
  }

  clear(): void {
    if (this.rows.size > 0) this.rows.clear();
    this.bytes = 0;
  }

  private drop(key: string): void {
    const kept = this.rows.get(key);
    if (!kept) return;
    this.rows.delete(key);
    this.bytes -= kept.bytes;
  }
}
