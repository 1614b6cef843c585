/**
 * A button that copies a text to the clipboard and says so ("Copied", announced to screen readers).
 * Where the clipboard API is missing or refused (a plain-HTTP install, no permission) the older copy
 * command is tried (lib/clipboard.ts); where that fails too, the text is shown beside the button,
 * selected, with how to copy it by hand.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { copyText } from '../lib/clipboard'

type State = 'idle' | 'copied' | 'failed'

/** Copies `text`; `label` names what is copied for screen readers ("Copy the secret"). */
export function CopyButton({
  text,
  label = 'Copy',
  small,
}: {
  text: string
  label?: string
  small?: boolean
}) {
  const [state, setState] = useState<State>('idle')
  const button = useRef<HTMLButtonElement>(null)
  const manual = useRef<HTMLInputElement & HTMLTextAreaElement>(null)
  useEffect(() => {
    if (state !== 'copied') return
    const t = setTimeout(() => setState('idle'), 4000)
    return () => clearTimeout(t)
  }, [state])
  // The text to copy by hand is selected as soon as it shows: in the same turn as the field and the
  // message appear (a layout effect), so nobody, a test neither, sees them before it is selected.
  useLayoutEffect(() => {
    if (state !== 'failed' || !manual.current) return
    manual.current.focus()
    manual.current.select()
  }, [state])
  const lines = text.split(/\r\n|\r|\n/)
  const copy = async () => setState((await copyText(text, button.current)) ? 'copied' : 'failed')
  return (
    <span class={state === 'failed' ? 'copy copy-open' : 'copy'}>
      <button type="button" ref={button} class={`btn btn-plain${small ? ' btn-small' : ''}`} onClick={copy}>
        {label}
      </button>
      <span class={state === 'failed' ? 'copy-status copy-failed' : 'copy-status'} role="status">
        {state === 'copied'
          ? 'Copied'
          : state === 'failed'
            ? 'This browser would not copy: the text is selected below, press Ctrl+C (⌘C on a Mac).'
            : ''}
      </span>
      {state === 'failed' &&
        (lines.length > 1 ? (
          // Text with line breaks (commands, JSON) keeps them: a text area as tall as the text.
          <textarea
            ref={manual}
            class="copy-manual"
            readOnly
            value={text}
            rows={Math.min(lines.length, 24)}
            wrap="off"
            spellcheck={false}
            aria-label={`${label}: the text to copy`}
            onFocus={(e) => e.currentTarget.select()}
          />
        ) : (
          <input
            ref={manual}
            class="copy-manual"
            readOnly
            value={text}
            aria-label={`${label}: the text to copy`}
            onFocus={(e) => e.currentTarget.select()}
          />
        ))}
    </span>
  )
}
