import { Placeholder } from './placeholder'

/** Chat. */
export function Chat(_props: { id?: string }) {
  return <Placeholder title="Chat" />
}
