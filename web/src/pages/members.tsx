import { Placeholder } from './placeholder'

/** Members. */
export function Members(_props: { id?: string }) {
  return <Placeholder title="Members" />
}
