'use client';
// Tasks (SPEC §13): exact find-by-external-id, then every task in a sortable, paginated table.
import { FindExternalId } from '../../../components/find-external-id';
import { WithWorkspace } from '../../../components/session';
import { TasksTable } from '../../../components/tasks-table';
import { PageHeader } from '../../../components/ui';

export default function TasksPage() {
  return (
    <>
      <PageHeader title="Tasks" />
      <WithWorkspace>
        {(w) => (
          <>
            <FindExternalId key={`find-${w.id}`} workspaceId={w.id} />
            <TasksTable key={`table-${w.id}`} workspaceId={w.id} />
          </>
        )}
      </WithWorkspace>
    </>
  );
}
