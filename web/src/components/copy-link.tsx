import { useId, useRef, useState } from 'preact/hooks'

/**
 * A link (or other secret) shown in a read-only field with a Copy button. Where the clipboard is
 * refused (no permission, not a secure context) the text is selected so the keyboard can copy it.
 */
export function CopyLink({ label, value }: { label: string; value: string }) {
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  const [copied, setCopied] = useState<'yes' | 'select' | null>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      setCopied('yes')
    } catch {
      input.current?.select()
      setCopied('select')
    }
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} ref={input} readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" class="btn btn-plain" onClick={copy}>
          Copy
        </button>
      </div>
      <p class="hint" role="status">
        {copied === 'yes' && 'Copied.'}
        {copied === 'select' && 'Selected: press Ctrl+C (⌘C on a Mac) to copy.'}
      </p>
    </div>
  )
}
