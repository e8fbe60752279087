'use client';
// Tasks (SPEC §13): exact find-by-external-id, then the task browser (prefix, filters, sort, pages — in the URL).
import { useSearchParams } from 'next/navigation';
import { Suspense, useEffect } from 'react';
import { FindExternalId } from '../../../components/find-external-id';
import { useConsoleSession, WithWorkspace } from '../../../components/session';
import { TasksTable } from '../../../components/tasks-table';
import { PageHeader } from '../../../components/ui';

/** A shared link names its workspace (`?ws=`): open that one when the reader is a member of it. */
function FollowLinkedWorkspace() {
  const ws = useSearchParams()?.get('ws');
  const { me, workspace, selectWorkspace } = useConsoleSession();
  useEffect(() => {
    if (ws && ws !== workspace?.id && me.workspaces.some((w) => w.id === ws)) selectWorkspace(ws);
  }, [ws, workspace?.id, me.workspaces, selectWorkspace]);
  return null;
}

export default function TasksPage() {
  return (
    <>
      <PageHeader title="Tasks" />
      <Suspense>
        <FollowLinkedWorkspace />
        <WithWorkspace>
          {(w) => (
            <>
              <FindExternalId key={`find-${w.id}`} workspaceId={w.id} />
              <TasksTable key={`table-${w.id}`} workspaceId={w.id} />
            </>
          )}
        </WithWorkspace>
      </Suspense>
    </>
  );
}
