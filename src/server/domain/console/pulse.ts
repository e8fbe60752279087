// SPEC §13: "the console's lists of unsettled identities and creation operations follow the truth within about two
// seconds". Task events cover what a create settles, releases and deletes; what happens while a create is in flight
// (its Begin, step progress, lease renewals, a recovery takeover, an Abort) sends no event (SPEC §4.2, §9) and may
// happen in another server process. So the console polls this pulse about once a second: a per-workspace signature
// of the open creation operations, from one aggregate over the open-operations index (repositories/pulse.ts). When
// the signature moves, the console refetches what it shows.
//
// One pulse per Services: every console open on this process shares one read of the database per `maxAgeMs`, so
// the database cost does not grow with the number of people watching.
import { requireRead } from './rows';
import type { Actor } from '../access';
import type { OpenOperationsRow } from '../../db/repositories/pulse';

export interface WorkspacePulse {
  /** Open (preparing, completing, aborting) creation operations in the workspace. */
  open: number;
  /** Moves when one begins, ends, changes state, records a step, is released while preparing or taken over. */
  signature: string;
  /** Moves when a lease is renewed (only pages that show leases need to refetch). */
  leases: string;
}

const QUIET: WorkspacePulse = { open: 0, signature: '', leases: '' };

export class CreationPulse {
  private last: { at: number; byWorkspace: Map<string, WorkspacePulse> } | undefined;
  private reading: Promise<Map<string, WorkspacePulse>> | undefined;

  constructor(
    private readonly readOpenOperations: () => Promise<OpenOperationsRow[]>,
    /** How old a shared reading may be. Well under the console's poll, so a change shows within about a second. */
    private readonly maxAgeMs = 250,
  ) {}

  async read(actor: Actor, workspaceId: string): Promise<WorkspacePulse> {
    requireRead(actor, workspaceId);
    return (await this.current()).get(workspaceId) ?? QUIET;
  }

  private async current(): Promise<Map<string, WorkspacePulse>> {
    if (this.last && Date.now() - this.last.at < this.maxAgeMs) return this.last.byWorkspace;
    // Callers arriving while a read is under way share it.
    this.reading ??= (async () => {
      try {
        const startedAt = Date.now();
        const byWorkspace = summarize(await this.readOpenOperations());
        this.last = { at: startedAt, byWorkspace };
        return byWorkspace;
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }
}

function summarize(rows: OpenOperationsRow[]): Map<string, WorkspacePulse> {
  const byWorkspace = new Map<string, WorkspacePulse>();
  for (const r of [...rows].sort((a, b) => a.state.localeCompare(b.state))) {
    const p = byWorkspace.get(r.workspaceId) ?? { open: 0, signature: '', leases: '' };
    p.open += r.count;
    p.signature += `${r.state}:${r.count}:${r.changedAt ?? '-'}:${r.generations};`;
    if (r.leaseAt && r.leaseAt > p.leases) p.leases = r.leaseAt;
    byWorkspace.set(r.workspaceId, p);
  }
  return byWorkspace;
}
