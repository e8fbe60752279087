'use client';
// Workspace settings for admins (SPEC §11): members and roles, API tokens (shown once, revocable, optionally expiring;
// listed with when they expire and were last used), workflow steps
// with WIP limits; repositories and agent profiles read-only (registered with the `tether` CLI).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../trpc/client';
import { messageOf } from '../trpc/errors';
import { CopyButton, QueryState, Time } from './ui';

const ROLES = ['viewer', 'operator', 'admin'] as const;
const SCOPES = ['tasks:read', 'tasks:write', 'identities:release', 'admin'] as const;

/** How long a new token lasts (the CLI also takes any duration or time: `--expires-in`, `--expires-at`). */
const EXPIRIES = [
  { label: 'Never', days: null },
  { label: '7 days', days: 7 },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '1 year', days: 365 },
] as const;

function useInvalidate() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: trpc.admin.pathKey() });
}

function ErrorLine({ error }: { error: unknown }) {
  return error ? (
    <p className="error-text" role="alert">
      {messageOf(error)}
    </p>
  ) : null;
}

export function Members({ workspaceId, selfId }: { workspaceId: string; selfId: string }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const q = useQuery(trpc.admin.members.queryOptions({ workspace_id: workspaceId }));
  const setRole = useMutation(trpc.admin.setRole.mutationOptions({ onSuccess: invalidate }));
  const add = useMutation(trpc.admin.addMember.mutationOptions({ onSuccess: invalidate }));
  const [email, setEmail] = useState('');
  const [role, setNewRole] = useState<(typeof ROLES)[number]>('viewer');
  const [password, setPassword] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(
      { workspace_id: workspaceId, email, role, password: password || null },
      { onSuccess: () => (setEmail(''), setPassword('')) },
    );
  };
  return (
    <section className="panel" aria-labelledby="members-title">
      <h2 id="members-title">Members and roles</h2>
      <p className="muted small">Viewers see; operators also release identities; admins also manage this page.</p>
      <QueryState
        query={q}
        isEmpty={(d) => d.length === 0}
        empty="No members yet (instance-wide admins are not listed)."
      >
        {(members) => (
          <table className="table">
            <caption className="visually-hidden">Members</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <tr key={m.user_id}>
                  <td>{m.email}</td>
                  <td>
                    <label>
                      <span className="visually-hidden">Role of {m.email}</span>
                      <select
                        value={m.role}
                        disabled={m.user_id === selfId || setRole.isPending}
                        onChange={(e) =>
                          setRole.mutate({
                            workspace_id: workspaceId,
                            user_id: m.user_id,
                            role: e.target.value as (typeof ROLES)[number],
                          })
                        }
                      >
                        {ROLES.map((r) => (
                          <option key={r}>{r}</option>
                        ))}
                      </select>
                    </label>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryState>
      <ErrorLine error={setRole.error} />
      <form className="form form--row" onSubmit={submit} aria-label="Add member">
        <label className="field">
          <span>Email</span>
          <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          <span>Role</span>
          <select value={role} onChange={(e) => setNewRole(e.target.value as (typeof ROLES)[number])}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Password (new users)</span>
          <input
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <button type="submit" className="btn btn--primary" disabled={add.isPending}>
          Add member
        </button>
      </form>
      <ErrorLine error={add.error} />
    </section>
  );
}

export function Tokens({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const q = useQuery(trpc.admin.tokens.queryOptions({ workspace_id: workspaceId }));
  const create = useMutation(trpc.admin.createToken.mutationOptions({ onSuccess: invalidate }));
  const revoke = useMutation(trpc.admin.revokeToken.mutationOptions({ onSuccess: invalidate }));
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['tasks:write']);
  const [expiry, setExpiry] = useState<string>('Never');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const days = EXPIRIES.find((x) => x.label === expiry)?.days ?? null;
    const expires_at = days === null ? null : new Date(Date.now() + days * 86_400_000).toISOString();
    create.mutate(
      { workspace_id: workspaceId, name, scopes: scopes as (typeof SCOPES)[number][], expires_at },
      { onSuccess: () => setName('') },
    );
  };
  return (
    <section className="panel" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      {create.data && (
        <div className="notice notice--ok" role="status">
          <p>
            <strong>Copy this token now; it is not shown again.</strong>
          </p>
          <p className="extid">
            <code className="extid__value" data-testid="new-token">
              {create.data.token}
            </code>
            <CopyButton text={create.data.token} label="Copy the new token" />
          </p>
        </div>
      )}
      <QueryState
        query={q}
        isEmpty={(d) => d.length === 0}
        empty="No tokens for this workspace yet. Create one below so a client can call the API."
      >
        {(tokens) => (
          <table className="table">
            <caption className="visually-hidden">API tokens</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td>{t.scopes.join(', ')}</td>
                  <td>
                    <Time iso={t.created_at} />
                  </td>
                  <td>{t.expires_at ? <Time iso={t.expires_at} /> : <span className="muted">never</span>}</td>
                  <td>
                    {/* Written by the server at most once a minute: up to a minute behind. */}
                    {t.last_used_at ? <Time iso={t.last_used_at} /> : <span className="muted">never</span>}
                  </td>
                  <td>
                    {t.revoked_at ? (
                      <span className="muted">
                        revoked <Time iso={t.revoked_at} />
                      </span>
                    ) : t.expires_at && Date.parse(t.expires_at) <= Date.now() ? (
                      <span className="muted">expired</span>
                    ) : (
                      <button
                        type="button"
                        className="btn btn--danger"
                        disabled={revoke.isPending}
                        onClick={() => {
                          if (window.confirm(`Revoke token “${t.name}”? Clients using it stop working.`))
                            revoke.mutate({ workspace_id: workspaceId, id: t.id });
                        }}
                      >
                        Revoke <span className="visually-hidden">{t.name}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryState>
      <ErrorLine error={revoke.error} />
      <form className="form form--row" onSubmit={submit} aria-label="Create token">
        <label className="field">
          <span>Token name</span>
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <fieldset className="field">
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label key={s} className="check">
              <input
                type="checkbox"
                checked={scopes.includes(s)}
                onChange={(e) => setScopes((cur) => (e.target.checked ? [...cur, s] : cur.filter((x) => x !== s)))}
              />{' '}
              {s}
            </label>
          ))}
        </fieldset>
        <label className="field">
          <span>Expires</span>
          <select value={expiry} onChange={(e) => setExpiry(e.target.value)}>
            {EXPIRIES.map((x) => (
              <option key={x.label} value={x.label}>
                {x.days === null ? 'Never' : `In ${x.label}`}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn btn--primary" disabled={create.isPending || scopes.length === 0}>
          Create token
        </button>
      </form>
      <ErrorLine error={create.error} />
    </section>
  );
}

function WipEditor({
  workspaceId,
  stepId,
  name,
  value,
}: {
  workspaceId: string;
  stepId: string;
  name: string;
  value: number | null;
}) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const [draft, setDraft] = useState(value === null ? '' : String(value));
  const save = useMutation(trpc.admin.setWipLimit.mutationOptions({ onSuccess: invalidate }));
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({
          workspace_id: workspaceId,
          step_id: stepId,
          wip_limit: draft.trim() === '' ? null : Number(draft),
        });
      }}
    >
      <label>
        <span className="visually-hidden">WIP limit of {name}</span>
        <input
          type="number"
          min={0}
          inputMode="numeric"
          placeholder="none"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          className="input--narrow"
        />
      </label>
      <button type="submit" className="btn" disabled={save.isPending}>
        Save <span className="visually-hidden">WIP limit of {name}</span>
      </button>
      {save.isError && <span className="error-text">{messageOf(save.error)}</span>}
    </form>
  );
}

export function Steps({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const q = useQuery(trpc.admin.steps.queryOptions({ workspace_id: workspaceId }));
  const create = useMutation(trpc.admin.createStep.mutationOptions({ onSuccess: invalidate }));
  const [name, setName] = useState('');
  return (
    <section className="panel" aria-labelledby="steps-settings-title">
      <h2 id="steps-settings-title">Workflow steps</h2>
      <p className="muted small">
        A WIP limit caps how many unarchived tasks a step holds; a create that would exceed it is refused. Empty means
        no limit.
      </p>
      <QueryState query={q} isEmpty={(d) => d.length === 0}>
        {(steps) => (
          <table className="table">
            <caption className="visually-hidden">Workflow steps</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Step</th>
                <th scope="col">WIP limit</th>
              </tr>
            </thead>
            <tbody>
              {steps.map((s) => (
                <tr key={s.id}>
                  <td>{s.position + 1}</td>
                  <td>
                    {s.name} {s.is_done && <span className="muted small">(done)</span>}
                  </td>
                  <td>
                    <WipEditor
                      key={`${s.id}-${s.wip_limit}`}
                      workspaceId={workspaceId}
                      stepId={s.id}
                      name={s.name}
                      value={s.wip_limit}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryState>
      <form
        className="form form--row"
        aria-label="Add step"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ workspace_id: workspaceId, name, wip_limit: null }, { onSuccess: () => setName('') });
        }}
      >
        <label className="field">
          <span>New step name</span>
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" className="btn btn--primary" disabled={create.isPending}>
          Add step
        </button>
      </form>
      <ErrorLine error={create.error} />
    </section>
  );
}

export function Registered({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const repos = useQuery(trpc.admin.repositories.queryOptions({ workspace_id: workspaceId }));
  const profiles = useQuery(trpc.admin.agentProfiles.queryOptions({ workspace_id: workspaceId }));
  return (
    <section className="panel" aria-labelledby="registered-title">
      <h2 id="registered-title">Repositories and agent profiles</h2>
      <p className="muted small">
        Registered with the CLI: <code>tether repo add</code>, <code>tether agent-profile create</code>.
      </p>
      <h3>Repositories</h3>
      <QueryState query={repos} minHeight="2rem" isEmpty={(d) => d.length === 0} empty="No repositories registered.">
        {(rows) => (
          <ul className="plain-list">
            {rows.map((r) => (
              <li key={r.id}>
                <strong>{r.name}</strong> <code className="small">{r.path}</code>{' '}
                <span className="muted small">default branch {r.default_branch}</span>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      <h3>Agent profiles</h3>
      <QueryState query={profiles} minHeight="2rem" isEmpty={(d) => d.length === 0} empty="No agent profiles.">
        {(rows) => (
          <ul className="plain-list">
            {rows.map((p) => (
              <li key={p.id}>
                <strong>{p.name}</strong> <span className="muted small">runner {p.runner}</span>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </section>
  );
}

/** Webhooks (SPEC §9) through the events router: the signing secret is shown once, by create. */
export function Webhooks({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const invalidate = () =>
    qc.invalidateQueries({ queryKey: trpc.event.webhooks.queryKey({ workspace_id: workspaceId }) });
  const q = useQuery(trpc.event.webhooks.queryOptions({ workspace_id: workspaceId }));
  const create = useMutation(trpc.event.createWebhook.mutationOptions({ onSuccess: invalidate }));
  const disable = useMutation(trpc.event.disableWebhook.mutationOptions({ onSuccess: invalidate }));
  const [url, setUrl] = useState('');
  return (
    <section className="panel" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      {create.data && (
        <div className="notice notice--ok" role="status">
          <p>
            <strong>Copy the signing secret now; it is not shown again.</strong>
          </p>
          <p className="extid">
            <code className="extid__value">{create.data.secret}</code>
            <CopyButton text={create.data.secret} label="Copy the webhook secret" />
          </p>
        </div>
      )}
      <QueryState query={q} minHeight="2rem" isEmpty={(d) => d.length === 0} empty="No webhooks.">
        {(hooks) => (
          <ul className="plain-list">
            {hooks.map((h) => (
              <li key={h.id}>
                <code className="small">{h.url}</code>{' '}
                {h.disabled_at ? (
                  <span className="muted small">disabled</span>
                ) : (
                  <button
                    type="button"
                    className="btn"
                    disabled={disable.isPending}
                    onClick={() => disable.mutate({ workspace_id: workspaceId, webhook_id: h.id })}
                  >
                    Disable <span className="visually-hidden">{h.url}</span>
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      <ErrorLine error={disable.error} />
      <form
        className="form form--row"
        aria-label="Add webhook"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ workspace_id: workspaceId, url }, { onSuccess: () => setUrl('') });
        }}
      >
        <label className="field">
          <span>Webhook URL</span>
          <input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
        </label>
        <button type="submit" className="btn btn--primary" disabled={create.isPending}>
          Add webhook
        </button>
      </form>
      <ErrorLine error={create.error} />
    </section>
  );
}
