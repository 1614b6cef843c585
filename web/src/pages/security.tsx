/**
 * Security (admin): the IP allowlist (with your address as the server sees it, and whether it is
 * listed) and the workspace's customer-managed encryption key.
 */
import { useState } from 'preact/hooks'
import { getAllowlist, getKmsKey } from '../api/security'
import type { Allowlist, KmsKey } from '../api/types'
import { AllowlistForm } from '../components/allowlist-form'
import { KmsKeyForm } from '../components/kms-key-form'
import { Async, PageHeader } from '../components/ui'
import { useLoad } from '../lib/use-load'
import '../styles/accounts.css'
import '../styles/admin.css'
import '../styles/security.css'

/** The security page. */
export function Security(_props: { id?: string }) {
  const allowlist = useLoad((signal) => getAllowlist(signal), [])
  const key = useLoad((signal) => getKmsKey(signal), [])
  const [list, setList] = useState<Allowlist | null>(null)
  const [kms, setKms] = useState<KmsKey | null>(null)
  return (
    <>
      <PageHeader
        title="Security"
        lead="Where this workspace may be used from, and the key its content is encrypted with."
      />
      <div class="stack">
        <Async load={allowlist}>
          {(loaded) => {
            const a = list ?? loaded
            return <AllowlistForm current={a} onSaved={setList} />
          }}
        </Async>
        <Async load={key}>{(loaded) => <KmsKeyForm current={kms ?? loaded} onSaved={setKms} />}</Async>
      </div>
    </>
  )
}
