/**
 * Recovery codes, shown the one time the server answers them (single sign-on just enforced): each
 * lets one admin sign in with their password once while the provider is unreachable. Engram keeps
 * only their hashes, so the dialog says so, and offers to copy or download them before it closes.
 */
import { saveFile } from '../lib/save-file'
import { CopyButton } from './copy-button'
import { Button, Dialog } from './ui'

/** The codes as a text file: one a line, with what they are. */
export function recoveryCodesText(codes: string[], workspace: string): string {
  return [
    `Engram recovery codes for ${workspace}`,
    'Each code works once: with an admin password, it signs in while single sign-on is enforced.',
    '',
    ...codes,
    '',
  ].join('\n')
}

/** The dialog with the codes; `codes` null keeps it closed. */
export function RecoveryCodesDialog(props: {
  codes: string[] | null
  workspace: string
  onClose: () => void
}) {
  const codes = props.codes
  return (
    <Dialog open={codes !== null} title="Your recovery codes" onClose={props.onClose}>
      {codes && (
        <div class="stack">
          <div class="alert alert-warn" role="note">
            <strong>Save these now: they are shown once.</strong> Engram keeps only a hash of each, so nobody
            can show them to you later. Keep them where admins can reach them if the identity provider fails.
          </div>
          <ol class="recovery-codes" aria-label="Recovery codes">
            {codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ol>
          <p class="hint">
            On the sign-in page, an admin enters their address, password and one code. Each code works once. A
            session signed in with a password has ended: sign in again through your identity provider.
          </p>
          <div class="dialog-actions">
            <CopyButton text={codes.join('\n')} label="Copy the codes" />
            <Button
              onClick={() =>
                saveFile(
                  new Blob([recoveryCodesText(codes, props.workspace)], { type: 'text/plain' }),
                  'engram-recovery-codes.txt',
                )
              }
            >
              Download
            </Button>
            <Button variant="primary" onClick={props.onClose}>
              I have saved them
            </Button>
          </div>
        </div>
      )}
    </Dialog>
  )
}
