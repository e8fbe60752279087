// Console sign-in (SPEC §11). The page only renders the form; src/components/sign-in-form.tsx does the work.
import { Suspense } from 'react';
import { SignInForm } from '../../../components/sign-in-form';

export const metadata = { title: 'Sign in · Tether' };

export default function SignInPage() {
  return (
    <>
      <h1>Sign in</h1>
      <Suspense fallback={<p role="status">Loading…</p>}>
        <SignInForm />
      </Suspense>
    </>
  );
}
