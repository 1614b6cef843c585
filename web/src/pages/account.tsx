import { useState } from 'preact/hooks'
import { changePassword, setupWorkspace, updateProfile } from '../api/auth'
import { adopt, me } from '../api/session'
import type { User } from '../api/types'
import { Button, ErrorBox, Field, Note, PageHeader } from '../components/ui'
import { useAction } from '../lib/action'
import '../styles/accounts.css'

/** A form's submit: the action, and the note its work answers once saved. */
function useSubmit() {
  const [saved, setSaved] = useState<string | null>(null)
  const action = useAction(async (work: () => Promise<string>) => {
    setSaved(null)
    setSaved(await work())
  })
  return { ...action, saved }
}

/** The display name, any member's own (`PATCH /auth/me`). */
function DisplayName({ user }: { user: User }) {
  const s = useSubmit()
  const onSubmit = (e: Event) => {
    e.preventDefault()
    const name = String(new FormData(e.currentTarget as HTMLFormElement).get('name'))
    s.run(async () => {
      me.value = await updateProfile(name)
      return 'Your name is saved.'
    })
  }
  return (
    <section class="card account-section" aria-labelledby="acct-profile">
      <h2 id="acct-profile">Profile</h2>
      <form class="stack" onSubmit={onSubmit}>
        <p class="muted">
          Signed in as <strong>{user.email}</strong>, {user.role === 'admin' ? 'an admin' : 'a member'} of{' '}
          {user.workspace_name}.
        </p>
        <Field
          label="Display name"
          name="name"
          required
          maxLength={120}
          autocomplete="name"
          defaultValue={user.name}
        />
        <ErrorBox error={s.error} />
        {s.saved && <Note kind="ok">{s.saved}</Note>}
        <div>
          <Button type="submit" variant="primary" busy={s.busy}>
            Save name
          </Button>
        </div>
      </form>
    </section>
  )
}

/** The workspace's name: admins rename it (`POST /auth/setup`); members only see it. */
function WorkspaceName({ user }: { user: User }) {
  const s = useSubmit()
  if (user.role !== 'admin') {
    return (
      <section class="card account-section" aria-labelledby="acct-ws">
        <h2 id="acct-ws">Workspace</h2>
        <p>
          <strong>{user.workspace_name}</strong>
        </p>
        <p class="hint">Only an admin of the workspace can rename it.</p>
      </section>
    )
  }
  const onSubmit = (e: Event) => {
    e.preventDefault()
    const workspace = String(new FormData(e.currentTarget as HTMLFormElement).get('workspace'))
    s.run(async () => {
      // The route renames both; the display name is sent as it is now, so only the workspace changes.
      me.value = await setupWorkspace({ workspace_name: workspace, name: me.value?.name ?? user.name })
      return 'The workspace name is saved.'
    })
  }
  return (
    <section class="card account-section" aria-labelledby="acct-ws">
      <h2 id="acct-ws">Workspace</h2>
      <form class="stack" onSubmit={onSubmit}>
        <Field
          label="Workspace name"
          name="workspace"
          required
          maxLength={120}
          autocomplete="organization"
          defaultValue={user.workspace_name}
          hint="Every member sees this name."
        />
        <ErrorBox error={s.error} />
        {s.saved && <Note kind="ok">{s.saved}</Note>}
        <div>
          <Button type="submit" variant="primary" busy={s.busy}>
            Rename workspace
          </Button>
        </div>
      </form>
    </section>
  )
}

/** A new password (`POST /auth/change-password`): other sessions end, this one carries on. */
function ChangePassword() {
  const s = useSubmit()
  const onSubmit = (e: Event) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const f = new FormData(form)
    const next = String(f.get('new'))
    s.run(async () => {
      if (next !== String(f.get('confirm'))) throw new Error('The two new passwords are not the same.')
      adopt(await changePassword({ current_password: String(f.get('current')), new_password: next }))
      form.reset()
      return 'Your password is changed. Your other sessions are signed out; this one stays signed in.'
    })
  }
  return (
    <section class="card account-section" aria-labelledby="acct-pw">
      <h2 id="acct-pw">Password</h2>
      <form class="stack" onSubmit={onSubmit}>
        <Field
          label="Current password"
          type="password"
          name="current"
          required
          autocomplete="current-password"
        />
        <Field
          label="New password"
          type="password"
          name="new"
          required
          minLength={8}
          maxLength={128}
          autocomplete="new-password"
          hint="8 to 128 characters. Changing it signs out your other sessions."
        />
        <Field
          label="Repeat the new password"
          type="password"
          name="confirm"
          required
          minLength={8}
          maxLength={128}
          autocomplete="new-password"
        />
        <ErrorBox error={s.error} />
        {s.saved && <Note kind="ok">{s.saved}</Note>}
        <div>
          <Button type="submit" variant="primary" busy={s.busy}>
            Change password
          </Button>
        </div>
      </form>
    </section>
  )
}

/** The signed-in user's own account: display name, the workspace name (admins), password. */
export function Account() {
  const user = me.value
  if (!user) return null
  return (
    <>
      <PageHeader title="Your account" />
      <div class="stack">
        <DisplayName user={user} />
        <WorkspaceName user={user} />
        <ChangePassword />
      </div>
    </>
  )
}
