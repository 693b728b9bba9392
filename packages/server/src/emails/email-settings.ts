/** How a store's e-mails leave Emporium: kept only, or also sent through an SMTP server. */
export interface EmailSettings {
  /** Set (SMTP_URL): each e-mail is also sent, by a job; unset: kept only, as NOT_SENT. */
  smtp?: { url: string; from: string };
  /** The wait before the attempt after `failures` failed ones. */
  retryDelayMs: (failures: number) => number;
  /** Attempts in all; after the last one fails the e-mail is FAILED. */
  attempts: number;
  /** How long an SMTP attempt may take, connection and all. */
  timeoutMs: number;
}

const FIRST_RETRY_MS = 30_000;
const LONGEST_WAIT_MS = 60 * 60 * 1000;

/** 30 s, 1 min, 2 min, ... up to an hour between attempts: about 8 hours over the 10 attempts. */
export function emailBackoff(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 20), LONGEST_WAIT_MS);
}

/** The settings of a server or worker, from its configuration (SMTP_URL, SMTP_FROM). */
export function emailSettings(config: { smtpUrl?: string; smtpFrom: string }): EmailSettings {
  return {
    smtp: config.smtpUrl ? { url: config.smtpUrl, from: config.smtpFrom } : undefined,
    retryDelayMs: emailBackoff,
    attempts: 10,
    timeoutMs: 30_000,
  };
}
