// The value of an HTTP Basic authorization header (ARI, Twilio's API).
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
