// A task that does not exist — or that the person may not see — is a real 404 inside the console frame (not a page that
// answers 200 and then shows an error), decided here, before the page renders, by asking the API (the page itself
// renders in the browser).
import { notFound } from 'next/navigation';
import type { ReactNode } from 'react';
import { apiSaysNotFound } from '../../../../trpc/server-lookup';

export default async function TaskLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ id: string }>;
}) {
  const { id } = await params;
  if (await apiSaysNotFound('console.task', { id })) notFound();
  return children;
}
