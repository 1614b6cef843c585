import { Placeholder } from './placeholder'

/** Usage. */
export function Usage(_props: { id?: string }) {
  return <Placeholder title="Usage" />
}
