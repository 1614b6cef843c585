import type { Transporter } from 'nodemailer'
import type { Logger } from '../log/log'

/** One outgoing message, plain text (links stay copyable in any client). */
export interface EmailMessage {
  to: string
  subject: string
  text: string
}

/** Sends mail, or, when email is disabled, tells callers to return links in responses instead. */
export interface Mailer {
  /** False when `ENGRAM_EMAIL=disabled`: nothing is sent and links belong in the response. */
  readonly enabled: boolean
  /** Delivers a message; resolves true once the server accepted it, false when it failed (logged). */
  send(message: EmailMessage): Promise<boolean>
}

/** What the mailer is built from: `email.transport` and `email.from` of the configuration. */
export interface MailerOptions {
  transport: string
  from: string
  log: Logger
}

/**
 * A mailer for `disabled`, `smtp://` or `smtps://` (nodemailer; credentials and options in the
 * URL). A failed delivery is logged and reported, never thrown: the user can ask for the link again.
 */
export function createMailer(opts: MailerOptions): Mailer {
  if (opts.transport === 'disabled') return { enabled: false, send: async () => false }
  // The library is loaded by the first message, not by every server at start-up.
  let transporter: Promise<Transporter> | null = null
  const connect = async () => {
    const { createTransport } = await import('nodemailer')
    return createTransport(
      {
        url: opts.transport,
        // Bounded waits: a slow or dead mail server must not hold a sign-up request for minutes.
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      },
      { from: opts.from },
    )
  }
  return {
    enabled: true,
    async send(message) {
      try {
        transporter ??= connect()
        await (await transporter).sendMail({ to: message.to, subject: message.subject, text: message.text })
        return true
      } catch (e) {
        // The address is personal data and the body holds a secret link: log neither.
        opts.log.error('email delivery failed', { subject: message.subject, error: (e as Error).message })
        return false
      }
    },
  }
}
