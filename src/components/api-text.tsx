// The few Markdown forms the OpenAPI document's descriptions use: `code`, **strong**, paragraphs and "- " lists.
// Rendered as React elements, never as HTML: a description cannot inject markup into the page.
import { Fragment, type ReactNode } from 'react';

/** `code` and **strong** inside one line of text. */
export function InlineText({ text }: { text: string }) {
  const parts = text.split(/(`[^`]+`|\*\*[^*]+\*\*)/g);
  return (
    <>
      {parts.map((part, i): ReactNode => {
        if (part.startsWith('`') && part.endsWith('`') && part.length > 1)
          return <code key={i}>{part.slice(1, -1)}</code>;
        if (part.startsWith('**') && part.endsWith('**') && part.length > 3)
          return <strong key={i}>{part.slice(2, -2)}</strong>;
        return <Fragment key={i}>{part}</Fragment>;
      })}
    </>
  );
}

/** Paragraphs (blank-line separated) and "- " lists; a list item's continuation lines are indented. */
export function BlockText({ text }: { text: string }) {
  const blocks = text
    .split(/\n\s*\n/)
    .map((b) => b.trim())
    .filter(Boolean);
  return (
    <>
      {blocks.map((block, i) => {
        if (!block.startsWith('- '))
          return (
            <p key={i}>
              <InlineText text={block.replace(/\s*\n\s*/g, ' ')} />
            </p>
          );
        const items = block.split(/\n(?=- )/).map((item) => item.slice(2).replace(/\s*\n\s*/g, ' '));
        return (
          <ul key={i}>
            {items.map((item, j) => (
              <li key={j}>
                <InlineText text={item} />
              </li>
            ))}
          </ul>
        );
      })}
    </>
  );
}
