'use client';
// The tasks table (SPEC §13): sorted and paginated on the server, rendered with TanStack Table (manual
// sorting/pagination). The previous page stays on screen while the next loads, so nothing jumps.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable, type PaginationState, type SortingState } from '@tanstack/react-table';
import Link from 'next/link';
import { useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../server/api/root';
import { useTRPC } from '../trpc/client';
import { useLivePoll } from './live';
import { ExternalId, QueryState, TaskBadges, Time } from './ui';

type Row = inferRouterOutputs<AppRouter>['console']['tasks']['rows'][number];
type Sort = 'identifier' | 'title' | 'external_id' | 'step' | 'created_at';

const col = createColumnHelper<Row>();
const columns = [
  col.accessor('identifier', {
    header: 'Task',
    cell: (c) => <Link href={`/tasks/${c.row.original.id}`}>{c.getValue()}</Link>,
  }),
  col.accessor('title', { header: 'Title', cell: (c) => <span className="truncate">{c.getValue()}</span> }),
  col.accessor('external_id', { header: 'External id', cell: (c) => <ExternalId value={c.getValue()} /> }),
  col.display({ id: 'status', header: 'Status', cell: (c) => <TaskBadges t={c.row.original} /> }),
  col.accessor('step_name', { id: 'step', header: 'Step', cell: (c) => c.getValue() ?? '—' }),
  col.accessor('created_at', { header: 'Age', cell: (c) => <Time iso={c.getValue()} /> }),
];

const PAGE_SIZES = [25, 50, 100];

export function TasksTable({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const [sorting, setSorting] = useState<SortingState>([{ id: 'identifier', desc: true }]);
  const [pagination, setPagination] = useState<PaginationState>({ pageIndex: 0, pageSize: 25 });
  const sort = sorting[0];
  const poll = useLivePoll(10_000);
  const q = useQuery(
    trpc.console.tasks.queryOptions(
      {
        workspace_id: workspaceId,
        sort: (sort?.id ?? 'identifier') as Sort,
        dir: sort?.desc === false ? 'asc' : 'desc',
        offset: pagination.pageIndex * pagination.pageSize,
        limit: pagination.pageSize,
      },
      { placeholderData: keepPreviousData, refetchInterval: poll },
    ),
  );
  const total = q.data?.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / pagination.pageSize));
  const table = useReactTable({
    data: q.data?.rows ?? [],
    columns,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualPagination: true,
    enableSortingRemoval: false,
    pageCount,
    state: { sorting, pagination },
    onSortingChange: (u) => {
      setSorting(u);
      setPagination((p) => ({ ...p, pageIndex: 0 }));
    },
    onPaginationChange: setPagination,
  });

  return (
    <section aria-labelledby="tasks-table-title">
      <h2 id="tasks-table-title" className="visually-hidden">
        All tasks
      </h2>
      <QueryState query={q} minHeight="24rem" isEmpty={(d) => d.total === 0} empty="No tasks in this workspace yet.">
        {() => (
          <>
            <div className="table-wrap" aria-busy={q.isFetching && q.isPlaceholderData}>
              <table className="table">
                <caption className="visually-hidden">Tasks, {total} in total. Column headers with buttons sort the table.</caption>
                <thead>
                  {table.getHeaderGroups().map((hg) => (
                    <tr key={hg.id}>
                      {hg.headers.map((h) => {
                        const sorted = h.column.getIsSorted();
                        return (
                          <th key={h.id} scope="col" aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
                            {h.column.getCanSort() ? (
                              <button type="button" className="th-sort" onClick={h.column.getToggleSortingHandler()}>
                                {flexRender(h.column.columnDef.header, h.getContext())}
                                <span aria-hidden="true" className="th-sort__icon">
                                  {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
                                </span>
                              </button>
                            ) : (
                              flexRender(h.column.columnDef.header, h.getContext())
                            )}
                          </th>
                        );
                      })}
                    </tr>
                  ))}
                </thead>
                <tbody>
                  {table.getRowModel().rows.map((r) => (
                    <tr key={r.id}>
                      {r.getVisibleCells().map((c) => (
                        <td key={c.id} data-label={String(c.column.columnDef.header)}>
                          {flexRender(c.column.columnDef.cell, c.getContext())}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <nav className="pager" aria-label="Pagination">
              <button type="button" className="btn" onClick={() => table.previousPage()} disabled={!table.getCanPreviousPage()}>
                Previous page
              </button>
              <span aria-live="polite">
                Page {pagination.pageIndex + 1} of {pageCount} · {total} tasks
              </span>
              <button type="button" className="btn" onClick={() => table.nextPage()} disabled={!table.getCanNextPage()}>
                Next page
              </button>
              <label className="pager__size">
                Rows per page{' '}
                <select value={pagination.pageSize} onChange={(e) => table.setPagination({ pageIndex: 0, pageSize: Number(e.target.value) })}>
                  {PAGE_SIZES.map((n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ))}
                </select>
              </label>
            </nav>
          </>
        )}
      </QueryState>
    </section>
  );
}
