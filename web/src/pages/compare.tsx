import { Placeholder } from './placeholder'

/** Compare. */
export function Compare(_props: { id?: string }) {
  return <Placeholder title="Compare" />
}
