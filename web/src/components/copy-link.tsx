import { useId } from 'preact/hooks'
import { CopyButton } from './copy-button'

/** A link (or other secret) in a labelled read-only field, with a copy button beside it. */
export function CopyLink({ label, value }: { label: string; value: string }) {
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={value} label="Copy" />
      </div>
    </div>
  )
}
