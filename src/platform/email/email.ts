import type { Transporter } from 'nodemailer'
import type { Logger } from '../log/log'

/** One outgoing message, plain text (links stay copyable in any client). */
export interface EmailMessage {
  to: string
  subject: string
  text: string
}

/**
 * How links reach people (`ENGRAM_EMAIL`): `smtp` mails them, `log` writes them to the server log
 * for the operator (the default: no mail server needed, nothing secret in any response),
 * `disabled` answers them to whoever asked (the spec's behaviour; an operator's explicit choice).
 */
export type EmailMode = 'smtp' | 'log' | 'disabled'

/** Where a link went (`link_delivery` on the wire); the same for every address, so it reveals no account. */
export type LinkDelivery = 'email' | 'server_log' | 'response'

/** A single-use link for one person (verification, password reset, invitation) and its message. */
export interface LinkMessage extends EmailMessage {
  /** What the link is for, for the operator's log line. */
  kind: string
  link: string
  requestId?: string
}

/** What became of a link: where it went, and the link itself when it belongs in the response. */
export interface LinkHandover {
  delivery: LinkDelivery
  /** Only in `disabled` mode. */
  link?: string
  /** False when the mail server refused or could not be reached (logged). */
  sent: boolean
}

/** Sends mail and hands single-use links over as the configured email mode says. */
export interface Mailer {
  readonly mode: EmailMode
  /** True only with a mail server (`smtp://`, `smtps://`). */
  readonly enabled: boolean
  /** Where links go in this mode. */
  readonly delivery: LinkDelivery
  /** Delivers a message; resolves true once the server accepted it, false when it failed (logged). */
  send(message: EmailMessage): Promise<boolean>
  /**
   * Hands a link to its holder: mailed, written to the log, or given back for the response.
   * `wait: false` answers before the mail server does (the result then says `sent: true`), so
   * response time does not tell whether an address has an account.
   */
  deliverLink(message: LinkMessage, opts: { wait: boolean }): Promise<LinkHandover>
}

/** What the mailer is built from: `email.transport` and `email.from` of the configuration. */
export interface MailerOptions {
  transport: string
  from: string
  log: Logger
}

/** The message of the operator's log line that carries a link (`log` mode); the only place a link is logged. */
export const LINK_LOG_MESSAGE = 'no mail server (ENGRAM_EMAIL=log): give this link to its holder'

/** The mode a `email.transport` value names. */
export function emailMode(transport: string): EmailMode {
  if (transport === 'log' || transport === 'disabled') return transport
  return 'smtp'
}

const DELIVERY: Record<EmailMode, LinkDelivery> = { smtp: 'email', log: 'server_log', disabled: 'response' }

/**
 * A mailer for `log`, `disabled`, `smtp://` or `smtps://` (nodemailer; credentials and options in
 * the URL). A failed delivery is logged and reported, never thrown: the user can ask for the link again.
 */
export function createMailer(opts: MailerOptions): Mailer {
  const mode = emailMode(opts.transport)
  const send = mode === 'smtp' ? smtpSender(opts) : async () => false
  return {
    mode,
    enabled: mode === 'smtp',
    delivery: DELIVERY[mode],
    send,
    async deliverLink(m, { wait }) {
      if (mode === 'disabled') return { delivery: 'response', link: m.link, sent: true }
      if (mode === 'log') {
        // The operator reads this line and passes the link on; no response ever carries it.
        opts.log.warn(LINK_LOG_MESSAGE, { kind: m.kind, email: m.to, link: m.link, request_id: m.requestId })
        return { delivery: 'server_log', sent: true }
      }
      const sent = send({ to: m.to, subject: m.subject, text: m.text })
      return { delivery: 'email', sent: wait ? await sent : true }
    },
  }
}

function smtpSender(opts: MailerOptions): (message: EmailMessage) => Promise<boolean> {
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
  return async (message) => {
    try {
      transporter ??= connect()
      await (await transporter).sendMail({ to: message.to, subject: message.subject, text: message.text })
      return true
    } catch (e) {
      // The address is personal data and the body holds a secret link: log neither.
      opts.log.error('email delivery failed', { subject: message.subject, error: (e as Error).message })
      return false
    }
  }
}
