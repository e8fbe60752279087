// First-run setup: the one-time link the server prints when no user exists creates the first admin.
import { Suspense } from 'react';
import { SetupForm } from '../../../components/setup-form';

export const metadata = { title: 'Set up · Tether' };

export default function SetupPage() {
  return (
    <>
      <h1>Create the first admin</h1>
      <Suspense fallback={<p role="status">Loading…</p>}>
        <SetupForm />
      </Suspense>
    </>
  );
}
