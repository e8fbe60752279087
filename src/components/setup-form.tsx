'use client';
// The first admin's account, behind the one-time token from the server's start-up line. Once used (or when any
// user exists) the page says so plainly and offers sign-in instead.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { setCsrfToken, useTRPC } from '../trpc/client';
import { messageOf } from '../trpc/errors';

export function SetupForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const token = useSearchParams().get('token') ?? '';
  const status = useQuery(trpc.session.setupStatus.queryOptions({ token }, { staleTime: Infinity }));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const setup = useMutation(
    trpc.session.setup.mutationOptions({
      onSuccess: async (s) => {
        setCsrfToken(s.csrf_token);
        await queryClient.invalidateQueries();
        router.replace('/');
      },
    }),
  );

  if (status.isPending) return <p role="status">Checking the setup link…</p>;
  if (status.isError) return <p role="alert">Could not check the setup link: {messageOf(status.error)}</p>;
  if (!status.data.usable && !setup.isSuccess) {
    return (
      <div role="alert" className="notice notice--bad">
        <p>
          <strong>This setup link is not valid.</strong> It has already been used, or a newer one was printed when the
          server restarted. Setup links work once, and only while no user exists.
        </p>
        <p>
          <Link href="/signin">Go to sign-in</Link>
        </p>
      </div>
    );
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setup.mutate({ token, email, password });
  };
  return (
    <form className="form" onSubmit={submit}>
      <p className="muted">This account will be an instance-wide admin. The link stops working once it is used.</p>
      <label className="field">
        <span>Email</span>
        <input
          type="email"
          name="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </label>
      <label className="field">
        <span>Password (at least 8 characters)</span>
        <input
          type="password"
          name="password"
          autoComplete="new-password"
          minLength={8}
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <div className="form__message" aria-live="polite">
        {setup.isError && (
          <p className="error-text" role="alert">
            {messageOf(setup.error)}
          </p>
        )}
      </div>
      <button type="submit" className="btn btn--primary" disabled={setup.isPending || setup.isSuccess}>
        {setup.isPending ? 'Creating…' : 'Create admin and sign in'}
      </button>
    </form>
  );
}
