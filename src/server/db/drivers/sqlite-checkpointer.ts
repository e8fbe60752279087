// Checkpoints a SQLite file's WAL from a thread of its own, so the server's thread never waits for them.
//
// A checkpoint copies the WAL's pages back into the database file and syncs both files (synchronous = NORMAL syncs
// nothing else). Run by the connection that commits — SQLite's automatic checkpoint — it blocks the event loop for the
// whole copy and both fsyncs: under a load of creates, ~70 µs of every create's wall time on this machine, and every
// request in flight waited out each one (p99 ~120 ms). From a second connection in a worker thread, a PASSIVE
// checkpoint takes no lock a writer needs, so commits go on while it runs; once it has copied everything, the next
// commit starts the WAL over from its beginning (SQLite's own rule), so the file keeps its size.
//
// It starts once a connection has committed START_AFTER_COMMITS times (a busy server; a short-lived connection — a
// test, a CLI command — never starts a thread), then runs at most every INTERVAL_MS while commits come in. The
// committing connection keeps its automatic checkpoint at WAL_AUTOCHECKPOINT_PAGES as a backstop: if this thread
// cannot start or its checkpoints fail (a full disk), nothing else changes.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Commits on a connection before it gets a checkpointing thread. */
export const START_AFTER_COMMITS = 100;
/** The least time between two background checkpoints (between one's start and the next's). */
export const INTERVAL_MS = 200;

// CommonJS, run with `eval`: nothing to resolve or bundle; better-sqlite3 comes by the path the driver resolved.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, frames: row.log, copied: row.checkpointed });
  } catch (err) {
    parentPort.postMessage({ ok: false, error: String((err && err.message) || err) });
  }
});
`;

type Reply = { ok: true; frames: number; copied: number } | { ok: false; error: string };

export class BackgroundCheckpointer {
  private worker: Worker | undefined;
  private commits = 0;
  /** Commits since the last checkpoint started. */
  private pending = false;
  private running = false;
  private lastStart = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Set when the thread could not start, died or was stopped: the connection's automatic checkpoint carries on. */
  private disabled = false;
  /** Checkpoints the thread finished or failed, and the last one's figures (tests and diagnostics). */
  readonly done = { checkpoints: 0, failures: 0, framesCopied: 0, lastFrames: 0, lastCopied: 0 };

  constructor(private readonly file: string) {}

  /** Called after each COMMIT of the connection. */
  committed(): void {
    this.commits++;
    this.pending = true;
    this.maybeRun();
  }

  private maybeRun(): void {
    if (this.disabled || this.running || !this.pending || this.commits < START_AFTER_COMMITS) return;
    const wait = INTERVAL_MS - (Date.now() - this.lastStart);
    if (wait > 0) {
      // The commits that came in meanwhile are checkpointed once the interval is over, even if none follows them.
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.maybeRun();
      }, wait).unref();
      return;
    }
    const worker = this.worker ?? this.start();
    if (!worker) return;
    this.running = true;
    this.pending = false;
    this.lastStart = Date.now();
    worker.postMessage('checkpoint');
  }

  private start(): Worker | undefined {
    try {
      const module = createRequire(import.meta.url).resolve('better-sqlite3');
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module, file: this.file } });
      worker.unref();
      worker.on('message', (reply: Reply) => {
        this.running = false;
        if (reply.ok) {
          this.done.checkpoints++;
          this.done.framesCopied += reply.copied;
          this.done.lastFrames = reply.frames;
          this.done.lastCopied = reply.copied;
        } else this.done.failures++;
        this.maybeRun();
      });
      // A thread that cannot open the file or dies: the connection's automatic checkpoint carries on alone.
      worker.on('error', () => {
        this.disabled = true;
      });
      worker.on('exit', () => {
        this.disabled = true;
        this.worker = undefined;
      });
      this.worker = worker;
      return worker;
    } catch {
      this.disabled = true;
      return undefined;
    }
  }

  /** Ends the thread, its connection closed first (before the committing connection closes). */
  async stop(): Promise<void> {
    this.disabled = true;
    if (this.timer) clearTimeout(this.timer);
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    // Held by the event loop until it has exited: unreferenced, a process with nothing else to do would end while
    // waiting here, before whatever its caller does after closing the database.
    worker.ref();
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.postMessage('close');
    });
  }
}
