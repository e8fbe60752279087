'use client';
// Settings (SPEC §11): only workspace admins manage members, tokens and steps, and resolve legacy identities and
// re-attest readiness (SPEC §12); the server checks it again. Webhooks are managed through the events router (event.*).
// An instance admin can create another workspace.
import { FirstWorkspace } from '../../../components/first-workspace';
import { IdentityReadiness } from '../../../components/identity-readiness';
import { Members, Registered, Steps, Tokens, Webhooks } from '../../../components/settings-sections';
import { useConsoleSession, WithWorkspace } from '../../../components/session';
import { PageHeader } from '../../../components/ui';

export default function SettingsPage() {
  const { me, selectWorkspace } = useConsoleSession();
  return (
    <>
      <PageHeader title="Settings" />
      <WithWorkspace>
        {(w) =>
          w.role !== 'admin' ? (
            <div className="state state--empty">
              Settings are for workspace admins. You are a {w.role} in {w.name}.
            </div>
          ) : (
            <div className="stack" key={w.id}>
              <Members workspaceId={w.id} selfId={me.user_id} />
              <Tokens workspaceId={w.id} />
              <Steps workspaceId={w.id} />
              <Webhooks workspaceId={w.id} />
              <Registered workspaceId={w.id} />
              <IdentityReadiness workspaceId={w.id} />
              {/* An instance admin makes workspaces here too (the first one is offered on every page). */}
              {me.is_admin && <FirstWorkspace another onStarted={() => undefined} onFinished={selectWorkspace} />}
            </div>
          )
        }
      </WithWorkspace>
    </>
  );
}
