'use client';
// An identity's history (SPEC §13): every task that held an external id, how each hold ended, every release (who, when,
// which channel, why, in which request), and which task holds it now — in the workspace the page names, which it says
// (and where else, among the workspaces this person may see, the id is held). The workspace and the id are in the URL
// (`/identity?ws=…&id=…`), so the page survives reload and a shared link shows the same thing to everyone who may see
// it. The history exports as CSV or JSON.
import { useQuery } from '@tanstack/react-query';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { Suspense, useEffect, useState, type FormEvent } from 'react';
import { ConsoleLink, useWorkspaceHref } from '../../../components/console-link';
import { EscapeHint, ExternalId } from '../../../components/external-id';
import { HeldElsewhere } from '../../../components/find-external-id';
import { ExportLinks } from '../../../components/list-controls';
import { RequestId } from '../../../components/operation-history';
import { WithWorkspace } from '../../../components/session';
import {
  Badge,
  OperationState,
  PageHeader,
  QueryState,
  TaskBadges,
  Time,
  type BadgeTone,
} from '../../../components/ui';
import { useTRPC } from '../../../trpc/client';

const ENDED: Record<string, { label: string; tone: BadgeTone }> = {
  holds: { label: 'holds it now', tone: 'ok' },
  released: { label: 'released', tone: 'warn' },
  deleted: { label: 'task deleted', tone: 'muted' },
  aborted: { label: 'create aborted', tone: 'bad' },
  unknown: { label: 'no longer holds it', tone: 'muted' },
};

function History({ workspaceId, externalId }: { workspaceId: string; externalId: string }) {
  const trpc = useTRPC();
  const q = useQuery(
    trpc.console.identityHistory.queryOptions({ workspace_id: workspaceId, external_id: externalId }, { retry: false }),
  );
  return (
    <QueryState query={q} minHeight="12rem">
      {(h) => (
        <>
          <section className="panel" aria-labelledby="now-title">
            <h2 id="now-title">Now</h2>
            <p className="small" data-testid="looked-in">
              Looked in workspace <strong>{h.workspace.prefix}</strong> · {h.workspace.name}
            </p>
            <p>
              <ExternalId value={h.external_id} lookalikes={h.holder?.lookalikes} />
            </p>
            {h.holder ? (
              <p data-testid="identity-now">
                Held by{' '}
                <ConsoleLink href={`/tasks/${h.holder.id}`} className="ident">
                  {h.holder.identifier}
                </ConsoleLink>{' '}
                — {h.holder.title} <TaskBadges t={h.holder} />
                {h.holder.operation_state && <OperationState state={h.holder.operation_state} />}
              </p>
            ) : (
              <p data-testid="identity-now">
                <strong>Nothing holds it in {h.workspace.prefix}.</strong>{' '}
                {h.free_since ? (
                  <>
                    Free since <Time iso={h.free_since} />.
                  </>
                ) : (
                  'No task has held it in this workspace.'
                )}
              </p>
            )}
            <HeldElsewhere elsewhere={h.elsewhere} />
            <ExportLinks
              list="identity"
              input={{ workspace_id: workspaceId, external_id: externalId }}
              label="this history"
            />
          </section>

          <section aria-labelledby="holders-title">
            <h2 id="holders-title">Tasks that held it</h2>
            {h.holders.length === 0 ? (
              <p className="state state--empty">No task has held this external id.</p>
            ) : (
              <div className="table-wrap">
                <table className="table" data-testid="holders">
                  <caption className="visually-hidden">Every task that held this external id, oldest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Task</th>
                      <th scope="col">Held since</th>
                      <th scope="col">Ended</th>
                      <th scope="col">Until</th>
                      <th scope="col">Created by</th>
                    </tr>
                  </thead>
                  <tbody>
                    {h.holders.map((t) => (
                      <tr key={t.task_id}>
                        <td data-label="Task">
                          {t.exists ? (
                            <ConsoleLink href={`/tasks/${t.task_id}`} className="ident">
                              {t.identifier ?? t.task_id}
                            </ConsoleLink>
                          ) : (
                            (t.identifier ?? <span className="muted">a task that no longer exists</span>)
                          )}
                          {t.title && <span className="muted"> {t.title}</span>}
                        </td>
                        <td data-label="Held since">
                          <Time iso={t.since} />
                        </td>
                        <td data-label="Ended">
                          <Badge tone={ENDED[t.ended]!.tone}>{ENDED[t.ended]!.label}</Badge>
                        </td>
                        <td data-label="Until">{t.until ? <Time iso={t.until} /> : '—'}</td>
                        <td data-label="Created by">
                          {t.created_by?.label ?? '—'}
                          {t.operation_id && (
                            <>
                              {' '}
                              <ConsoleLink href={`/operations/${t.operation_id}`} className="ident">
                                operation {t.operation_id.slice(0, 8)}
                              </ConsoleLink>
                            </>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>

          <section aria-labelledby="releases-title">
            <h2 id="releases-title">Releases</h2>
            {h.releases.length === 0 ? (
              <p className="state state--empty">Never released.</p>
            ) : (
              <div className="table-wrap">
                <table className="table" data-testid="releases">
                  <caption className="visually-hidden">Every release of this external id, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Who</th>
                      <th scope="col">Channel</th>
                      <th scope="col">Reason</th>
                      <th scope="col">Result</th>
                    </tr>
                  </thead>
                  <tbody>
                    {h.releases.map((r) => (
                      <tr key={r.id}>
                        <td data-label="When">
                          <Time iso={r.at} />
                        </td>
                        <td data-label="Who">
                          {r.actor.label} <RequestId id={r.request_id} />
                        </td>
                        <td data-label="Channel">{r.source}</td>
                        <td data-label="Reason">{r.reason ?? <span className="muted">none given</span>}</td>
                        <td data-label="Result">
                          {r.result === 'released' ? (
                            <>
                              Released from{' '}
                              {r.holder_task_id ? (
                                <ConsoleLink href={`/tasks/${r.holder_task_id}`} className="ident">
                                  {r.holder_identifier ?? 'its task'}
                                </ConsoleLink>
                              ) : (
                                'its task'
                              )}
                            </>
                          ) : (
                            'Nothing held it'
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </QueryState>
  );
}

function IdentityHistory() {
  const id = useSearchParams()?.get('id') ?? '';
  const router = useRouter();
  const pathname = usePathname() ?? '/identity';
  const href = useWorkspaceHref();
  const [draft, setDraft] = useState(id);
  useEffect(() => setDraft(id), [id]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    router.push(href(`${pathname}?${new URLSearchParams({ id: draft }).toString()}`));
  };
  return (
    <>
      <form className="find__form panel" onSubmit={submit} role="search" aria-label="Identity history">
        <label className="field find__field">
          <span>External id (exact)</span>
          <input
            className="mono"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <button type="submit" className="btn btn--primary">
          Show history
        </button>
      </form>
      <EscapeHint text={draft} triedFirst />
      {id !== '' && (
        <WithWorkspace>{(w) => <History key={`${w.id}:${id}`} workspaceId={w.id} externalId={id} />}</WithWorkspace>
      )}
    </>
  );
}

export default function IdentityHistoryPage() {
  return (
    <>
      <PageHeader title="Identity history" />
      <Suspense>
        <IdentityHistory />
      </Suspense>
    </>
  );
}
