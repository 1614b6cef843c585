/**
 * A file name (a document's path in its base) shown safely: direction controls and invisible
 * characters made visible (see visible-text.ts), and the name isolated in a `<bdi>` so that a
 * right-to-left name cannot reorder the text around it (the size, the status, "will be deleted").
 */
import { visibleText } from '../lib/visible-text'

/** The name as the console shows it; `class` defaults to the monospace path style. */
export function FileName(props: { name: string; class?: string }) {
  const shown = visibleText(props.name)
  return (
    <bdi
      class={props.class ?? 'doc-path'}
      title={shown === props.name ? undefined : 'This name holds invisible or direction-changing characters'}
    >
      {shown}
    </bdi>
  )
}
