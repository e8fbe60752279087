'use client';
// THE way the console shows an external id (SPEC §13). External ids are untrusted text: every one is rendered by this
// component — isolated from the text around it (<bdi>, CSS `unicode-bidi: isolate`), its invisible and
// direction-changing characters spelled as visible escapes (`⟦U+202E⟧`, src/lib/visible-id.ts: brackets no font draws
// like parentheses, in a marked box), with a hint when another task of the workspace holds a canonically-equivalent
// (NFC/NFD) spelling. Copy puts the REAL value on the clipboard; what is shown is what an operator can type back (Find,
// the browsers' prefixes and the release dialog accept it, and `<U+202E>` or `\u202E` too: EscapeHint says how an
// input was read).
import { useEffect, useState } from 'react';
import {
  describeCodePoint,
  hasHiddenCharacters,
  readTypedEscapes,
  typedEscapes,
  visibleForm,
  visibleParts,
} from '../lib/visible-id';
import { ConsoleLink } from './console-link';

export interface IdLookalike {
  task_id: string;
  identifier: string;
  form: 'NFC' | 'NFD';
}

/** The id's text: plain runs as they are, each escaped character as a marked, labelled escape. */
function IdText({ value }: { value: string }) {
  return (
    <bdi className="extid__value" dir="ltr" data-testid="extid-value" title={visibleForm(value)}>
      {visibleParts(value).map((p, i) =>
        p.kind === 'text' ? (
          p.text
        ) : (
          <span key={i} className="extid__escape" title={describeCodePoint(p.char.codePointAt(0)!)}>
            {p.text}
          </span>
        ),
      )}
    </bdi>
  );
}

export function ExternalId({
  value,
  copy = true,
  lookalikes,
}: {
  value: string | null | undefined;
  /** A copy button (off inside sentences). */
  copy?: boolean;
  /** Other tasks holding an NFC/NFD spelling of this id (from the server's `lookalikes`). */
  lookalikes?: readonly IdLookalike[];
}) {
  if (value === null || value === undefined) return <span className="muted">none</span>;
  const shown = visibleForm(value);
  return (
    <span className="extid">
      <IdText value={value} />
      {copy && <CopyButton text={value} label={`Copy external id ${shown}`} />}
      {copy && hasHiddenCharacters(value) && (
        <span
          className="extid__hint"
          title="Characters that draw as nothing or reorder text are shown as ⟦U+XXXX⟧; Copy gives the real value."
        >
          hidden characters shown as ⟦U+…⟧
        </span>
      )}
      {lookalikes && lookalikes.length > 0 && (
        <span className="extid__hint extid__hint--warn" role="note">
          Looks the same as the id of{' '}
          {lookalikes.map((l, i) => (
            <span key={l.task_id}>
              {i > 0 && ', '}
              <ConsoleLink href={`/tasks/${l.task_id}`}>{l.identifier}</ConsoleLink> ({l.form} spelling)
            </span>
          ))}{' '}
          — a different id.
        </span>
      )}
    </span>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(t);
  }, [copied]);
  // The button's text stays "Copy" (its accessible name starts with what it shows); "Copied" is said next to it.
  return (
    <>
      <button
        type="button"
        className="btn btn--icon"
        aria-label={label}
        title="Copy"
        onClick={() => {
          void navigator.clipboard?.writeText(text).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        Copy
      </button>
      <span className="small muted" aria-live="polite">
        {copied ? 'Copied' : ''}
      </span>
    </>
  );
}

/**
 * Under an input that holds typed escapes (`⟦U+200B⟧`, `<U+200B>`, `\u200B`…): how the console reads it — the value,
 * and which character each escape stands for (SPEC §13: escapes can be typed back).
 */
export function EscapeHint({ text, id, triedFirst = false }: { text: string; id?: string; triedFirst?: boolean }) {
  const found = typedEscapes(text);
  if (found.length === 0) return null;
  const value = readTypedEscapes(text);
  return (
    <p className="small escape-hint" id={id} data-testid="escape-hint">
      {value === undefined ? (
        <>
          This holds an escape that names no character (
          {found
            .filter((e) => e.char === undefined)
            .map((e) => e.typed)
            .join(', ')}
          ), so it is read as typed.
        </>
      ) : (
        <>
          Read as <ExternalId value={value} copy={false} />:{' '}
          {found.map((e) => `${e.typed} is ${describeCodePoint(e.codePoint)}`).join('; ')}.
          {triedFirst && ' The text exactly as typed is looked up first.'}
        </>
      )}
    </p>
  );
}
