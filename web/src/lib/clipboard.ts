/**
 * Copying text where the clipboard API is missing or refused. `navigator.clipboard` exists only on
 * secure origins (HTTPS, or localhost): a console opened as http://server:8080 on a LAN has none,
 * and a browser may refuse it without a permission. The older copy command still works there: a
 * text area off screen holds the text, is selected, and `document.execCommand('copy')` copies the
 * selection. When that fails too the caller shows the text selected, for the person to copy.
 */

/** Copies `text`; false when neither way worked. `from` is the control that asked (its focus is kept). */
export async function copyText(text: string, from?: HTMLElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text)
      return true
    }
  } catch {
    // Refused (no permission, not focused): the copy command may still be allowed.
  }
  return copyWithCommand(text, from)
}

function copyWithCommand(text: string, from?: HTMLElement | null): boolean {
  const area = document.createElement('textarea')
  area.value = text
  area.readOnly = true
  area.className = 'copy-scratch'
  area.setAttribute('aria-hidden', 'true')
  area.tabIndex = -1
  // A modal dialog makes the rest of the page inert: the text area goes inside it to be selectable.
  const host = from?.closest('dialog') ?? document.body
  host.append(area)
  area.select()
  area.setSelectionRange(0, text.length)
  let copied = false
  try {
    copied = document.execCommand('copy')
  } catch {
    copied = false
  }
  area.remove()
  from?.focus()
  return copied
}
