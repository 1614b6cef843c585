/**
 * The Plan page's Legal section: each document's current version, whether the workspace accepted
 * it (by whom and when, from its receipt), a way to read it, and "Accept" for admins.
 */
import { useState } from 'preact/hooks'
import { listMembers } from '../api/admin'
import {
  getLegalDocument,
  getLegalReceipt,
  getLegalStatus,
  type LegalReceipt,
  type LegalStatusItem,
} from '../api/legal'
import { useAction } from '../lib/action'
import { useLoad } from '../lib/use-load'
import { LegalDialog, type OpenDocument } from './legal-dialog'
import { TableScroll } from './table-scroll'
import { Async, Button, ErrorBox, Time } from './ui'

interface LegalRow {
  item: LegalStatusItem
  receipt: LegalReceipt | null
  /** Who accepted, in words (a member's name and address, or the API key). */
  by: string | null
}

/** The status with each accepted document's receipt; names from the members list for admins. */
async function loadLegal(admin: boolean, signal: AbortSignal): Promise<LegalRow[]> {
  const status = await getLegalStatus(signal)
  const [receipts, members] = await Promise.all([
    Promise.all(
      status.documents.map((d) =>
        d.accepted_version ? getLegalReceipt(d.document, signal).catch(() => null) : Promise.resolve(null),
      ),
    ),
    admin
      ? listMembers(signal).then(
          (m) => m.members,
          () => [],
        )
      : Promise.resolve([]),
  ])
  return status.documents.map((item, i) => {
    const receipt = receipts[i] ?? null
    const who = receipt?.accepted_by
    const member = who?.type === 'user' ? members.find((m) => m.id === who.id) : undefined
    const by = !who
      ? null
      : member
        ? `${member.name} (${member.email})`
        : who.type === 'api_key'
          ? `API key ${who.id}`
          : who.id
    return { item, receipt, by }
  })
}

/** The Legal section; `admin` may accept; a new `version` reads it again (after a plan change). */
export function PlanLegal({ admin, version }: { admin: boolean; version: number }) {
  const legal = useLoad((signal) => loadLegal(admin, signal), [admin, version])
  const [open, setOpen] = useState<OpenDocument | null>(null)
  const read = useAction(async (item: LegalStatusItem) => {
    const doc = await getLegalDocument(item.document)
    setOpen({
      doc,
      canAccept: admin && !item.accepted,
      done: (accepted) => {
        setOpen(null)
        if (accepted) legal.reload()
      },
    })
  })
  return (
    <section aria-labelledby="legal-title" class="stack">
      <h2 id="legal-title">Legal</h2>
      <p class="hint">
        A paid plan needs the current version of every document accepted by an admin, on the workspace's
        behalf.
      </p>
      <ErrorBox error={read.error} />
      <Async load={legal}>
        {(rows) => (
          <TableScroll label="Legal documents">
            <table>
              <thead>
                <tr>
                  <th scope="col">Document</th>
                  <th scope="col">Version</th>
                  <th scope="col">Accepted</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map(({ item, receipt, by }) => (
                  <tr key={item.document} data-document={item.document}>
                    <td>{item.title}</td>
                    <td class="legal-version">{item.version}</td>
                    <td>
                      {item.accepted ? (
                        <span class="badge badge-ok">Accepted</span>
                      ) : (
                        <span class="badge badge-warn">Not accepted</span>
                      )}
                      {receipt && (
                        <span class="legal-by">
                          {' '}
                          {receipt.current ? '' : `version ${receipt.version} `}by {by} on{' '}
                          <Time iso={receipt.accepted_at} />
                        </span>
                      )}
                    </td>
                    <td class="legal-actions">
                      <Button
                        busy={read.busy && read.args?.[0].document === item.document}
                        onClick={() => read.run(item)}
                        aria-label={`${admin && !item.accepted ? 'Read and accept' : 'Read'} ${item.title}`}
                      >
                        {admin && !item.accepted ? 'Read and accept' : 'Read'}
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Async>
      <LegalDialog open={open} />
    </section>
  )
}
