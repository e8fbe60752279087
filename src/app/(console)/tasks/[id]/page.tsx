// Task detail (SPEC §13). A task that does not exist — or that the person may not see — is a real 404 inside the
// console frame (issue 15), decided before rendering by asking the API; the page itself renders in the browser.
import { notFound } from 'next/navigation';
import { apiSaysNotFound } from '../../../../trpc/server-lookup';
import { TaskDetail } from './task-detail';

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (await apiSaysNotFound('console.task', { id })) notFound();
  return <TaskDetail />;
}
