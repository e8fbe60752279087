'use client';
// Email + password → the session cookie (HttpOnly) and the CSRF token the API client echoes. `next` brings the
// person back to the page that sent them here; only same-site paths are followed. Too many failed attempts (SPEC
// §11) answer 429 with a wait: the form says so in plain words, counts it down and holds the button until then.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState, type FormEvent } from 'react';
import { setCsrfToken, useTRPC } from '../trpc/client';
import { domainCodeOf, messageOf, retryAfterOf } from '../trpc/errors';
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
  /** A throttled sign-in's wait (seconds, as the server said it), when it ends, and the clock counting down to it. */
  const [throttledFor, setThrottledFor] = useState<number | null>(null);
  const [retryAt, setRetryAt] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const login = useMutation(
    trpc.session.login.mutationOptions({
      onSuccess: async (s) => {
        setCsrfToken(s.csrf_token);
        await queryClient.invalidateQueries();
        router.replace(next);
      },
      onError: (err) => {
        const wait = domainCodeOf(err) === 'sign_in_throttled' ? retryAfterOf(err) : undefined;
        setNow(Date.now());
        setThrottledFor(wait ?? null);
        setRetryAt(wait === undefined ? null : Date.now() + wait * 1000);
      },
    }),
  );
  const waitSeconds = retryAt === null ? 0 : Math.max(0, Math.ceil((retryAt - now) / 1000));

  useEffect(() => {
    if (retryAt === null) return;
    const tick = setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= retryAt) clearInterval(tick);
    }, 1000);
    return () => clearInterval(tick);
  }, [retryAt]);

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
            {/* Said once (an alert is read out on every change); the button counts down. */}
            {throttledFor === null
              ? messageOf(login.error)
              : `Too many attempts; try again in ${throttledFor} second${throttledFor === 1 ? '' : 's'}.`}
          </p>
        )}
      </div>
      <button type="submit" className="btn btn--primary" disabled={login.isPending || waitSeconds > 0}>
        {login.isPending ? 'Signing in…' : waitSeconds > 0 ? `Try again in ${waitSeconds} s` : 'Sign in'}
      </button>
    </form>
  );
}
