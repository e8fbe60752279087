'use client';
// The console's not-found page: HTTP 404, inside the console frame, with a way back. Shown for unknown paths
// ([...missing]) and for a task or operation that does not exist or that the person may not see.
import { ConsoleLink } from '../../components/console-link';

export default function ConsoleNotFound() {
  return (
    <section className="state state--empty not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Not found</h1>
      <p>
        There is nothing at this address — or it is in a workspace you cannot see. Check the link, or start again from a
        list.
      </p>
      <ul className="not-found__ways">
        <li>
          <ConsoleLink href="/">Overview</ConsoleLink>
        </li>
        <li>
          <ConsoleLink href="/tasks">Tasks</ConsoleLink>
        </li>
        <li>
          <ConsoleLink href="/operations">Operations</ConsoleLink>
        </li>
      </ul>
    </section>
  );
}
