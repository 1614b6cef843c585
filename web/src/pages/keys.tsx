import { Placeholder } from './placeholder'

/** API keys. */
export function Keys(_props: { id?: string }) {
  return <Placeholder title="API keys" />
}
