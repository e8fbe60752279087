// One creation operation (SPEC §13). One that does not exist — or that the person may not see — is a real 404 inside
// the console frame (issue 15), decided before rendering by asking the API; the page itself renders in the browser.
import { notFound } from 'next/navigation';
import { apiSaysNotFound } from '../../../../trpc/server-lookup';
import { OperationDetail } from './operation-detail';

export default async function OperationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (await apiSaysNotFound('console.operation', { id })) notFound();
  return <OperationDetail />;
}
