'use client';
// Tasks (SPEC §13): exact find-by-external-id, then the task browser (prefix, filters, sort, pages); the workspace,
// the id found and the browser's state are all in the URL.
import { Suspense } from 'react';
import { FindExternalId } from '../../../components/find-external-id';
import { WithWorkspace } from '../../../components/session';
import { TasksTable } from '../../../components/tasks-table';
import { PageHeader } from '../../../components/ui';

export default function TasksPage() {
  return (
    <>
      <PageHeader title="Tasks" />
      <Suspense>
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
