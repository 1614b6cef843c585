/**
 * A button that copies a text to the clipboard and says so ("Copied", announced to screen readers).
 * Where the clipboard is refused (no permission, an insecure origin) it says so and the caller's
 * text stays on screen to be selected by hand.
 */
import { useEffect, useState } from 'preact/hooks'

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
  useEffect(() => {
    if (state === 'idle') return
    const t = setTimeout(() => setState('idle'), 4000)
    return () => clearTimeout(t)
  }, [state])
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setState('copied')
    } catch {
      setState('failed')
    }
  }
  return (
    <span class="copy">
      <button type="button" class={`btn btn-plain${small ? ' btn-small' : ''}`} onClick={copy}>
        {label}
      </button>
      <span class={state === 'failed' ? 'copy-status copy-failed' : 'copy-status'} role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text and copy it' : ''}
      </span>
    </span>
  )
}
