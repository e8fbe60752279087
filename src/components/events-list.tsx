'use client';
// A compact list of outbox events (SPEC §9): type, task, revision, when.
import { ConsoleLink } from './console-link';
import { ExternalId } from './external-id';
import { Badge, Time } from './ui';

interface EventRow {
  seq: number;
  id: string;
  task_id: string;
  type: string;
  revision: number;
  created_at: string;
  task_identifier: string | null;
  external_id: string | null;
}

export function EventsList({ events, linkTasks = true }: { events: EventRow[]; linkTasks?: boolean }) {
  return (
    <ol className="events">
      {events.map((e) => (
        <li key={e.id} className="events__row">
          <Badge tone={e.type === 'task.deleted' ? 'bad' : e.type === 'task.created' ? 'ok' : 'info'}>{e.type}</Badge>
          <span>
            {linkTasks && e.type !== 'task.deleted' ? (
              <ConsoleLink href={`/tasks/${e.task_id}`}>{e.task_identifier ?? e.task_id}</ConsoleLink>
            ) : (
              (e.task_identifier ?? e.task_id)
            )}{' '}
            <span className="muted">rev {e.revision}</span>
            {e.external_id && (
              <>
                {' '}
                <ExternalId value={e.external_id} copy={false} />
              </>
            )}
          </span>
          <Time iso={e.created_at} />
        </li>
      ))}
    </ol>
  );
}
