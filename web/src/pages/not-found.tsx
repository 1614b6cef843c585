import { PublicLayout } from '../components/layout'

/** Any console path no page answers. */
export function NotFound() {
  return (
    <PublicLayout title="Page not found">
      <p>There is no page at this address.</p>
      <p class="links">
        <a href="/console/">Go to the console</a>
      </p>
    </PublicLayout>
  )
}
