/** The console's small set of building blocks; every page is made of these. */
import type { ButtonHTMLAttributes, ComponentChildren, InputHTMLAttributes } from 'preact'
import { useEffect, useId, useRef } from 'preact/hooks'
import { ApiError } from '../api/client'
import type { Loaded } from '../lib/use-load'

/** A page's heading, with its actions on the right. */
export function PageHeader(props: { title: string; children?: ComponentChildren; lead?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · Engram`
  }, [props.title])
  return (
    <header class="page-header">
      <div>
        <h1>{props.title}</h1>
        {props.lead && <p class="lead">{props.lead}</p>}
      </div>
      {props.children && <div class="actions">{props.children}</div>}
    </header>
  )
}

type ButtonProps = ButtonHTMLAttributes & {
  variant?: 'primary' | 'danger' | 'plain'
  busy?: boolean
  type?: 'button' | 'submit'
  disabled?: boolean
}

/** A button; `busy` disables it and says so to screen readers. */
export function Button({
  variant = 'plain',
  busy,
  disabled,
  type = 'button',
  children,
  ...rest
}: ButtonProps) {
  return (
    <button {...rest} type={type} class={`btn btn-${variant}`} disabled={disabled || busy} aria-busy={busy}>
      {busy && <span class="spinner" aria-hidden="true" />}
      {children}
    </button>
  )
}

type FieldProps = InputHTMLAttributes & {
  label: string
  hint?: ComponentChildren
  type?: string
  name?: string
  value?: string
  required?: boolean
  autocomplete?: string
  minLength?: number
  maxLength?: number
  min?: string | number
  max?: string | number
}

/** A labelled input with an optional hint. */
export function Field({ label, hint, ...input }: FieldProps) {
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  )
}

/** After a refusal for a plan's cap (403 `plan_limit_reached`), the way to the Plan page; else nothing. */
export function PlanLimitLink({ error }: { error: Error | null | undefined }) {
  if (!(error instanceof ApiError) || error.code !== 'plan_limit_reached') return null
  return (
    <>
      {' '}
      <a href="/console/plan">See the plan and its limits</a>
    </>
  )
}

/** An error in the API's words; announced to screen readers. A plan's cap reached links to the Plan page. */
export function ErrorBox({ error }: { error: Error | null | undefined }) {
  if (!error) return null
  return (
    <div class="alert alert-error" role="alert">
      {error.message}
      <PlanLimitLink error={error} />
    </div>
  )
}

/** A success or information note. */
export function Note({
  children,
  kind = 'info',
}: {
  children: ComponentChildren
  kind?: 'info' | 'ok' | 'warn'
}) {
  return (
    <div class={`alert alert-${kind}`} role="status">
      {children}
    </div>
  )
}

/** A loading indicator for a region. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div class="loading" role="status">
      <span class="spinner" aria-hidden="true" /> {label}
    </div>
  )
}

/** What a list shows when it has nothing yet, and what to do about it. */
export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children}
    </div>
  )
}

/** Renders a load's three states: loading, error (with a retry), and the data. */
export function Async<T>({ load, children }: { load: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (load.data === undefined && load.loading) return <Loading />
  if (load.data === undefined) {
    return (
      <div>
        <ErrorBox error={load.error} />
        <Button onClick={load.reload}>Try again</Button>
      </div>
    )
  }
  return (
    <>
      {load.error && <ErrorBox error={load.error} />}
      {children(load.data)}
    </>
  )
}

/** A progress bar with its value spoken. */
export function Progress({ value, label }: { value: number; label: string }) {
  const pct = Math.max(0, Math.min(100, Math.round(value * 100)))
  return (
    <div
      class="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct}
    >
      <div class="progress-bar" style={{ width: `${pct}%` }} />
    </div>
  )
}

/**
 * A modal dialog (the platform's `<dialog>`: focus is trapped and Escape closes it). `open` shows
 * it; `onClose` runs when it is dismissed.
 */
export function Dialog(props: {
  open: boolean
  title: string
  onClose: () => void
  children: ComponentChildren
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const id = useId()
  // A close is told as an event after the fact (a task later): one this component made is not a
  // dismissal, least of all of what the dialog shows by then (e.g. the next document to accept).
  const closing = useRef(false)
  useEffect(() => {
    const d = ref.current
    if (!d) return
    if (props.open && !d.open) d.showModal()
    if (!props.open && d.open) {
      closing.current = true
      d.close()
    }
  }, [props.open])
  return (
    <dialog
      ref={ref}
      aria-labelledby={id}
      onClose={() => {
        if (closing.current) closing.current = false
        else props.onClose()
      }}
      class="dialog"
    >
      <h2 id={id}>{props.title}</h2>
      {props.open && props.children}
    </dialog>
  )
}

/** Asks before a destructive action; the question names what will be lost. */
export function Confirm(props: {
  open: boolean
  title: string
  children: ComponentChildren
  confirmLabel: string
  busy?: boolean
  error?: Error | null
  onConfirm: () => void
  onCancel: () => void
}) {
  return (
    <Dialog open={props.open} title={props.title} onClose={props.onCancel}>
      <div class="dialog-body">{props.children}</div>
      <ErrorBox error={props.error} />
      <div class="dialog-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button variant="danger" busy={props.busy} onClick={props.onConfirm}>
          {props.confirmLabel}
        </Button>
      </div>
    </Dialog>
  )
}

/** A time as the reader's locale writes it, with the exact time on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">never</span>
  const d = new Date(iso)
  return (
    <time dateTime={iso} title={d.toISOString()}>
      {d.toLocaleString()}
    </time>
  )
}
