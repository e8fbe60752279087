'use client';
// First run: right after setup the only admin has no workspace. Here they create one (name and task prefix) and, if
// they like, its first API token — shown once (SPEC §11), until they choose to go on.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc/client';
import { messageOf } from '../trpc/errors';
import { CopyButton } from './ui';

interface Created {
  id: string;
  prefix: string;
  token: string | null;
}

export function FirstWorkspace({
  onStarted,
  onFinished,
  another = false,
}: {
  onStarted(): void;
  onFinished(workspaceId: string): void;
  /** On Settings, for an instance admin who has workspaces already. */
  another?: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const createWorkspace = useMutation(trpc.workspace.create.mutationOptions());
  const createToken = useMutation(trpc.admin.createToken.mutationOptions());
  const [name, setName] = useState('');
  const [prefix, setPrefix] = useState('');
  const [withToken, setWithToken] = useState(true);
  const [created, setCreated] = useState<Created | null>(null);
  const pending = createWorkspace.isPending || createToken.isPending;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (pending) return;
    onStarted();
    try {
      const w = await createWorkspace.mutateAsync({ name, prefix });
      const token = withToken
        ? (
            await createToken.mutateAsync({
              workspace_id: w.id,
              name: `${w.prefix} first token`,
              scopes: ['tasks:write', 'identities:release'],
            })
          ).token
        : null;
      setCreated({ id: w.id, prefix: w.prefix, token });
      await queryClient.invalidateQueries({ queryKey: trpc.session.me.queryKey() });
      if (!token) onFinished(w.id);
    } catch {
      // The mutation's error is shown below the form; a workspace made before a failed token stays (Settings makes tokens).
    }
  };

  if (created?.token) {
    return (
      <section className="panel" aria-labelledby="first-ws-done">
        <h2 id="first-ws-done">Workspace {created.prefix} is ready</h2>
        <div className="notice notice--ok" role="status">
          <p>
            <strong>Copy this API token now; it is not shown again.</strong> It may create tasks and release identities
            in {created.prefix}; more tokens and members are under Settings.
          </p>
          <p className="extid">
            <code className="extid__value" data-testid="new-token">
              {created.token}
            </code>
            <CopyButton text={created.token} label="Copy the new token" />
          </p>
        </div>
        <button type="button" className="btn btn--primary" onClick={() => onFinished(created.id)}>
          I have copied it — open {another ? 'the new workspace' : 'the console'}
        </button>
      </section>
    );
  }

  const error = createWorkspace.error ?? createToken.error;
  return (
    <section className="panel" aria-labelledby="first-ws-title">
      <h2 id="first-ws-title">{another ? 'Create another workspace' : 'Create your first workspace'}</h2>
      <p>
        Tasks live in a workspace. Give it a name and a task prefix (tasks are numbered <code>PREFIX-1</code>,{' '}
        <code>PREFIX-2</code>, …). Then create an API token so a client can start creating tasks.
      </p>
      <form className="form" onSubmit={(e) => void submit(e)} aria-label="Create a workspace">
        <label className="field">
          <span>Name</span>
          <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="field">
          <span>Task prefix (1–10 capital letters or digits)</span>
          <input
            required
            maxLength={10}
            pattern="[A-Z0-9]{1,10}"
            value={prefix}
            onChange={(e) => setPrefix(e.target.value.toUpperCase())}
          />
        </label>
        <label className="check">
          <input type="checkbox" checked={withToken} onChange={(e) => setWithToken(e.target.checked)} /> Also create its
          first API token (shown once)
        </label>
        <button type="submit" className="btn btn--primary" disabled={pending}>
          {pending ? 'Creating…' : 'Create workspace'}
        </button>
      </form>
      {error && (
        <p className="error-text" role="alert">
          {messageOf(error)}
        </p>
      )}
    </section>
  );
}
