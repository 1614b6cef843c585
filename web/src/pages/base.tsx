import { Placeholder } from './placeholder'

/** Document base. */
export function Base(_props: { id?: string }) {
  return <Placeholder title="Document base" />
}
