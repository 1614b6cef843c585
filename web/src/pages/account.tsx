import { Placeholder } from './placeholder'

/** Account. */
export function Account(_props: { id?: string }) {
  return <Placeholder title="Account" />
}
