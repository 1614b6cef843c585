import { Placeholder } from './placeholder'

/** Status. */
export function Status(_props: { id?: string }) {
  return <Placeholder title="Status" />
}
