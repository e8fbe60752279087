'use client';
// Email + password → the session cookie (HttpOnly) and the CSRF token the API client echoes. `next` brings the
// person back to the page that sent them here; only same-site paths are followed.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState, type FormEvent } from 'react';
import { setCsrfToken, useTRPC } from '../trpc/client';
import { messageOf } from '../trpc/errors';
import { useMe } from './session';

function safeNext(raw: string | null): string {
  return raw && raw.startsWith('/') && !raw.startsWith('//') ? raw : '/';
}

export function SignInForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const next = safeNext(useSearchParams().get('next'));
  const me = useMe();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation(
    trpc.session.login.mutationOptions({
      onSuccess: async (s) => {
        setCsrfToken(s.csrf_token);
        await queryClient.invalidateQueries();
        router.replace(next);
      },
    }),
  );

  // Already signed in: nothing to do here.
  useEffect(() => {
    if (me.data) router.replace(next);
  }, [me.data, next, router]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate({ email, password });
  };

  return (
    <form className="form" onSubmit={submit} aria-describedby={login.isError ? 'signin-error' : undefined}>
      <label className="field">
        <span>Email</span>
        <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label className="field">
        <span>Password</span>
        <input
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      <div className="form__message" aria-live="polite">
        {login.isError && (
          <p id="signin-error" className="error-text" role="alert">
            {messageOf(login.error)}
          </p>
        )}
      </div>
      <button type="submit" className="btn btn--primary" disabled={login.isPending}>
        {login.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
