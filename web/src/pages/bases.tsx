import { Placeholder } from './placeholder'

/** Document bases. */
export function Bases(_props: { id?: string }) {
  return <Placeholder title="Document bases" />
}
