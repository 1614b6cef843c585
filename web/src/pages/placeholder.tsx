import { PageHeader } from '../components/ui'

/** A section whose page is still being built. */
export function Placeholder({ title }: { title: string }) {
  return <PageHeader title={title} lead="This page is coming in a later version." />
}
